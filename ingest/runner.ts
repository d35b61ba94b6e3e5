import { join } from 'node:path';
import { Piscina } from 'piscina';
import { UnavailableError } from '../core/errors.js';
import { distRoot } from '../core/paths.js';
import { runPipeline, type PipelineResult, type PipelineTask } from './pipeline.js';

export interface PipelineRunner {
  run(task: PipelineTask): Promise<PipelineResult>;
  close(): Promise<void>;
}

export interface RunnerOptions {
  /** Bodies at or above this size go to a worker thread. Default 256 KiB. */
  offloadBytes?: number;
  /** Worker threads. Default 1 (2-core machines share with the stream role). */
  maxThreads?: number;
  /** Queued large bodies before 503. Default 16. */
  maxQueue?: number;
  retryAfterSeconds: number;
}

/**
 * Small bodies run inline (a worker hop costs more than it saves); large ones on a Piscina pool
 * created on first use. A full queue is an explicit 503, never an unbounded wait.
 */
export function createPipelineRunner(opts: RunnerOptions): PipelineRunner {
  const offloadBytes = opts.offloadBytes ?? 256 * 1024;
  let pool: Piscina | undefined;
  const getPool = () =>
    (pool ??= new Piscina({
      filename: join(distRoot, 'ingest', 'workers', 'pipeline-worker.js'),
      minThreads: 0,
      maxThreads: opts.maxThreads ?? 1,
      maxQueue: opts.maxQueue ?? 16,
      idleTimeout: 30_000,
    }));
  return {
    async run(task) {
      if (task.body.byteLength < offloadBytes) return runPipeline(task);
      const p = getPool();
      if (p.queueSize >= (opts.maxQueue ?? 16)) {
        throw new UnavailableError('ingest is temporarily unavailable (decode queue full); safe to retry', opts.retryAfterSeconds, { code: 'unavailable_decode_queue' });
      }
      return p.run(task);
    },
    async close() {
      await pool?.destroy();
      pool = undefined;
    },
  };
}
