/**
 * Runs a taxonomy build on a thread of its own (stream/tasks/taxonomy-build.ts), abortable. The
 * thread is kept between builds and exits after BUILD_THREAD_IDLE_MS without one: a pass of the
 * tenant jobs builds its tenants one after another on one warm thread instead of starting a thread
 * per build, which paid a new isolate, the modules' loading and the recompilation of the build's
 * hot code every time (about 0.35 s of CPU per build of 600 segments, 2.5× the warm build).
 */
import { Piscina } from 'piscina';
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

/** How long the build thread waits for the next build before it exits (its heap goes with it). */
export const BUILD_THREAD_IDLE_MS = 30_000;

let threads: Piscina | undefined;
// one thread: the scheduler runs its tenants' jobs one at a time; an idle thread holds no event loop open
const buildThreads = () =>
  (threads ??= new Piscina({ filename: new URL('../tasks/taxonomy-build.js', import.meta.url).href, minThreads: 0, maxThreads: 1, idleTimeout: BUILD_THREAD_IDLE_MS }));

/**
 * The build of `segments` on the build thread. An abort of `signal` stops it where it is: a build
 * still queued is dropped, a running one ends with its thread (the next build starts a new one).
 */
export async function buildInWorker(segments: readonly TaxonomySegment[], previous: PreviousTree | undefined, signal: AbortSignal): Promise<TaxonomyBuild> {
  if (signal.aborted) throw new TaxonomyBuildAbortedError('taxonomy build aborted before it started');
  const request: BuildRequest = {
    segments: segments.map((s) => ({ segment_id: s.segment_id, conversation_id: s.conversation_id, text: s.text, goal: s.goal })),
    previous: previous && { leafOf: [...previous.leafOf], categoryOf: [...previous.categoryOf] },
  };
  try {
    return (await buildThreads().run(request, { signal })) as TaxonomyBuild;
  } catch (err) {
    if (signal.aborted) throw new TaxonomyBuildAbortedError('taxonomy build aborted', { cause: err });
    throw new TaxonomyBuildFailedError('taxonomy build failed', { cause: err });
  }
}
