import { loadConfig } from '../../core/config.js';
import type { Command } from '../command.js';

export const replayWorkerCommand: Command = {
  name: 'replay-worker',
  summary: 'Reference replay worker: replays fix gate and A/B cases with a scripted agent',
  usage: `Usage: tracehouse replay-worker

Connects to NATS (NATS_URL), answers replay-worker pings and replays the cases of gate, control
and A/B runs with a deterministic scripted agent: a case without a scenario abstains; otherwise
it passes when the arm's prompt carries every check phrase of the case, and fails when one is
missing. Several workers share the queue. Replace it with a worker that runs your own agent
harness: the protocol is in docs/fixes.md ("Replay workers"). Stops on SIGINT/SIGTERM.`,
  async run() {
    const { createLogger } = await import('../../core/log.js');
    const { openBus } = await import('../../core/runtime.js');
    const { startReplayWorker } = await import('../../fixes/replay-worker.js');
    const config = loadConfig();
    const log = createLogger(config.logLevel, { role: 'replay-worker' });
    const { bus, close } = await openBus(config, log);
    const worker = await startReplayWorker(bus, { log });
    log.info({ worker: worker.workerId }, 'replay worker ready');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await worker.stop();
    log.info({ handled: worker.handled }, 'replay worker stopped');
    await close();
  },
};
