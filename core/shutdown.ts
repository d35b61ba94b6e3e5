import type { Logger } from './log.js';

/**
 * First SIGINT/SIGTERM runs `stop` (documented order in docs/operations.md); a second signal, or
 * `stop` taking longer than `forceAfterMs`, exits at once with code 1.
 */
export function installShutdown(stop: () => Promise<void>, log: Logger, forceAfterMs = 30_000): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    setTimeout(() => {
      log.error('shutdown took too long: exiting');
      process.exit(1);
    }, forceAfterMs).unref();
    stop().then(
      () => {
        log.info('stopped');
        log.flush?.();
        setTimeout(() => process.exit(0), 20).unref();
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
