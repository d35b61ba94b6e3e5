/** Piscina task: the reads of an analysis batch in, every analyzer's rows out. Pure. */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { runAnalysisWork, type WorkOutput, type WorkRequest } from '../analyze/work.js';
import { workItemsOf } from '../analyze/work-items.js';
import { encodeWorkOutput } from '../analyze/work-bytes.js';
import { movedResult } from './moved.js';
import { withFields } from '../../core/own.js';

/**
 * Analysis is background work: its thread runs at the lowest CPU priority (nice 19), below decoding,
 * the edge, the data API and the engine, so that under load it takes the CPU they leave instead of
 * a fair share of it (docs/stream.md "Analysis work on its own thread"). Linux gives each thread
 * its own nice value; elsewhere, or where it is refused, the thread keeps the normal priority.
 */
export const ANALYSIS_NICE = 19;
// only a worker thread lowers itself: on the main thread this would lower the whole role's main loop
if (!isMainThread) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, ANALYSIS_NICE);
  } catch {
    // not Linux, or not permitted
  }
}

/**
 * The batch's reads in as the engine returned them, parsed here (stream/analyze/work-items.ts);
 * every analyzer's rows out as insert-ready bytes, moved to the main thread, not copied
 * (stream/analyze/work-bytes.ts): the main thread only sends them to the engine.
 */
export default function analyze(request: WorkRequest): WorkOutput {
  const { loaded, ...rest } = request;
  const out = runAnalysisWork(withFields(rest, { items: workItemsOf(loaded) }));
  return movedResult(out, encodeWorkOutput(out, request.version, request.maxAttempts));
}
