/** Runs a taxonomy build on its own worker thread (stream/tasks/taxonomy-build.ts), abortable. */
import { Worker } from 'node:worker_threads';
import type { PreviousTree, TaxonomyBuild, TaxonomySegment } from '../analyses/taxonomy/build.js';
import type { BuildRequest } from '../tasks/taxonomy-build.js';

/** The build stopped because its signal was aborted (lease lost or role stopping). */
export class TaxonomyBuildAbortedError extends Error {
  override name = 'TaxonomyBuildAbortedError';
  readonly code = 'taxonomy_build_aborted';
}

/** The build thread failed or exited without a result. */
export class TaxonomyBuildFailedError extends Error {
  override name = 'TaxonomyBuildFailedError';
  readonly code = 'taxonomy_build_failed';
}

export function buildInWorker(segments: readonly TaxonomySegment[], previous: PreviousTree | undefined, signal: AbortSignal): Promise<TaxonomyBuild> {
  if (signal.aborted) return Promise.reject(new TaxonomyBuildAbortedError('taxonomy build aborted before it started'));
  const request: BuildRequest = {
    segments: segments.map((s) => ({ segment_id: s.segment_id, conversation_id: s.conversation_id, text: s.text, goal: s.goal })),
    previous: previous && { leafOf: [...previous.leafOf], categoryOf: [...previous.categoryOf] },
  };
  const worker = new Worker(new URL('../tasks/taxonomy-build.js', import.meta.url), { workerData: request });
  return new Promise<TaxonomyBuild>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      void worker.terminate();
      settle(() => reject(new TaxonomyBuildAbortedError('taxonomy build aborted')));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (b: TaxonomyBuild) => settle(() => resolve(b)));
    worker.once('error', (err) => settle(() => reject(new TaxonomyBuildFailedError('taxonomy build failed', { cause: err }))));
    worker.once('exit', (code) => settle(() => reject(new TaxonomyBuildFailedError(`taxonomy build thread exited with code ${code}`))));
  });
}
