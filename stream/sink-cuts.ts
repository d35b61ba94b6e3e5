/**
 * When the sink cuts its buffer besides its size limits (stream/sink.ts): by age, by the input
 * stopping, or not by time at all while a backlog fills it (docs/stream.md "The sink"). Pure rules
 * of a few numbers, so each is tested on its own and the sink only keeps the timers.
 */

/**
 * How long after its first entry a buffer is cut by time. A buffer that starts filling while an
 * insert runs is under load: it may fill for twice the interval (one larger insert, one part to
 * merge, instead of a small one the moment the running insert ends). A buffer that starts while no
 * insert runs — a lone event under light load — is cut at the interval, as before.
 */
export function cutAfterMs(startedDuringInsert: boolean, flushIntervalMs: number): number {
  return startedDuringInsert ? 2 * flushIntervalMs : flushIntervalMs;
}

/**
 * A buffer filled from a backlog is cut at this many flush intervals of age at the latest (2 s at
 * the default 250 ms), should the backlog not fill it first (another replica taking its messages).
 */
export const BACKLOG_AGE_INTERVALS = 8;

/**
 * Whether the messages still waiting behind the newest entry fill the buffer by themselves: `backlog`
 * messages of the buffer's rows per message cover the rows it lacks. Then cutting it by age would
 * only store the same events in more, smaller inserts (each a part to write and merge), while
 * every event behind them waits all the same; it is cut by size instead (docs/stream.md "The sink").
 */
export function fillsFromBacklog(backlog: number | undefined, rowsPerMessage: number, missingRows: number): boolean {
  return backlog !== undefined && backlog > 0 && backlog * rowsPerMessage >= missingRows;
}

/** "Quiet" is this many usual gaps between entries without one (and at least `quietMs`). */
export const QUIET_GAPS = 4;
/** Weight of the newest gap in the moving average. */
export const GAP_WEIGHT = 0.2;

/**
 * How long without a new entry means the input stopped: `quietMs`, or `QUIET_GAPS` usual gaps
 * when entries come further apart (a gap between two requests of a light load is not the end of
 * it). Before any gap is known, the input's pace is unknown: only age and size cut.
 */
export function quietAfterMs(quietMs: number, gapMs: number | undefined): number {
  return gapMs === undefined ? Infinity : Math.max(quietMs, QUIET_GAPS * gapMs);
}
