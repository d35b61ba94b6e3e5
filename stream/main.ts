import type { Runtime, RoleHandle } from '../core/runtime.js';

/** Starts the stream role: consumers of INGEST and ANALYZE, the sink, scheduled jobs. */
export async function startStream(rt: Runtime): Promise<RoleHandle> {
  const log = rt.log.child({ role: 'stream' });
  log.info('stream role started');
  return {
    name: 'stream',
    close: async () => {},
  };
}
