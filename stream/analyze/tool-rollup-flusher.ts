/**
 * The paced step of the tool-failure rollup (tool-failures.ts): recomputes the daily rows of the
 * (tenant, tool, UTC day) groups the analyzer marked in `tool_rollup_dirty`, in passes instead of
 * once per analysis batch. A recompute reads every fact of a tool's day, so its cost grows with the
 * day's calls (0.5 s of wall time for five tools at 1M facts a day, measured on the embedded
 * engine; docs/stream.md "The tool-failure rollup's recompute"); run per batch it took a growing
 * share of the cores as the day filled. A pass:
 *   1. reads the marks (at most `PASS_GROUPS`; the rest wait for the next pass),
 *   2. recomputes their groups from the facts (`recomputeGroups`),
 *   3. tombstones each mark at the version it read: a group marked again meanwhile has a higher
 *      version, so its mark outlives the tombstone and the next pass recomputes it.
 * A crash at any point leaves the marks, and every write replaces: the next pass, of this replica
 * or another, recomputes them. Passes are paced: the next starts no sooner than `minIntervalMs`,
 * and no sooner than `DUTY_GAP_FACTOR` times the last pass's duration, after the last one ended,
 * so recomputes take at most a fifth of the wall time however large the day's facts grow (the
 * daily rows then lag further behind the facts instead).
 */
import type { Store } from '../../core/clickhouse.js';
import { namedQuery } from '../../core/clickhouse.js';
import type { Logger } from '../../core/log.js';
import type { StreamMetrics } from '../metrics.js';
import { recomputeGroups } from './tool-failures.js';
import { withFields } from '../../core/own.js';

/** Marks read and recomputed by one pass. */
export const PASS_GROUPS = 10_000;
/** The gap after a pass is at least this many times its duration. */
export const DUTY_GAP_FACTOR = 4;

export interface ToolRollupFlusherOptions {
  store: Store;
  log: Logger;
  metrics: StreamMetrics;
  /** Shortest time from the end of a pass to the start of the next (TOOL_ROLLUP_INTERVAL_MS). */
  minIntervalMs: number;
  /**
   * Runs a pass's statements when nothing else of the caller's runs (the analyze consumer passes its
   * batch lock: the embedded engine runs one statement at a time, and a pass interleaved with a
   * batch's statements delays both and the sink's inserts queued behind them). Default: at once.
   */
  exclusive?: <T>(fn: () => Promise<T>) => Promise<T>;
}

export interface ToolRollupFlusher {
  /** Groups were marked (or may have been, by a run that crashed): a pass runs when pacing allows. */
  poke(): void;
  /** Runs a pass now if groups were marked since the last one (after the pass running); for stops and tests. */
  flush(): Promise<void>;
  /** No more passes after a last flush. */
  stop(): Promise<void>;
}

interface Mark {
  tenant_id: string;
  tool_name: string;
  day: string;
  version: string;
}

export function createToolRollupFlusher(opts: ToolRollupFlusherOptions): ToolRollupFlusher {
  const { store, log, metrics } = opts;
  let timer: NodeJS.Timeout | undefined;
  /** The pass running (passes never overlap). */
  let running: Promise<void> | undefined;
  /** Marks may exist that no pass has read yet. */
  let pending = false;
  let stopped = false;
  let lastEndMs = -Infinity;
  let lastDurationMs = 0;

  const pass = async () => {
    pending = false;
    const t0 = performance.now();
    try {
      const marks = await store.query<Mark>(namedQuery('stream-tool-rollup-dirty'), { limit: PASS_GROUPS });
      if (marks.length) {
        await recomputeGroups(store, marks.map((m) => [m.tenant_id, m.tool_name, m.day]));
        await store.insert('tool_rollup_dirty', marks.map((m) => withFields(m, { is_deleted: 1 })));
        metrics.toolRollupGroups.inc({}, marks.length);
        if (marks.length === PASS_GROUPS) pending = true;
      }
      metrics.toolRollupPasses.inc({ outcome: 'ok' });
    } catch (err) {
      // the marks stay: the next pass (after the gap) tries them again
      pending = true;
      metrics.toolRollupPasses.inc({ outcome: 'error' });
      log.warn({ err }, 'tool-failure rollup pass failed: its groups stay marked and are retried');
    } finally {
      lastDurationMs = performance.now() - t0;
      lastEndMs = Date.now();
      metrics.toolRollupPassSeconds.set(lastDurationMs / 1000);
    }
  };

  const exclusive = opts.exclusive ?? ((fn) => fn());
  const start = () => {
    running = exclusive(pass).finally(() => {
      running = undefined;
      if (pending) schedule();
    });
    return running;
  };

  function schedule() {
    if (stopped || timer || running) return; // a running pass schedules the next when it ends
    const gapMs = Math.max(opts.minIntervalMs, DUTY_GAP_FACTOR * lastDurationMs);
    timer = setTimeout(() => {
      timer = undefined;
      if (!running && !stopped) void start();
    }, Math.max(0, lastEndMs + gapMs - Date.now()));
  }

  const flush = async () => {
    while (running) await running;
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending) await start();
  };

  return {
    poke() {
      pending = true;
      schedule();
    },
    flush,
    async stop() {
      stopped = true;
      await flush();
    },
  };
}
