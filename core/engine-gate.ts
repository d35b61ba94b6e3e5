/**
 * The order in which statements reach the embedded engine. chDB runs one statement at a time on a
 * session, and a process has one session; left to itself the session takes statements in the
 * order they were submitted, so a data API read submitted behind the sink's inserts, the analyses'
 * scans and the jobs' statements waited for all of them. The gate holds statements in three lanes
 * and hands the engine one at a time:
 *
 * - **read** (the data API) and the two other lanes take turns while both wait: a read goes next
 *   after any other statement, another statement after a read. So a read waits for the statement
 *   already running and at most one other statement per read queued before it, never for the whole
 *   queue; and the other work (the stream's inserts above all) goes at least every other turn
 *   however many reads keep coming: strict read priority let a steady stream of polling reads hold
 *   each insert up to its bound, and accepted events took seconds longer to be stored.
 * - **store** (the sink's inserts of accepted rows) goes before **background** (analyses, rollups,
 *   jobs) for up to `STORE_RUN` turns in a row while background work waits, then one background
 *   statement goes. A flush inserts its tables one after another; in one lane with the analyses'
 *   statements each of its inserts queued behind the background work submitted while the previous
 *   one ran, so a flush took several analysis statements longer and the buffer filling behind it
 *   waited as long. Background work is never starved: it gets at least one turn in `STORE_RUN + 1`
 *   of the turns that are not reads.
 * - A flush's tables are inserted one after another, each submitted once the one before has ended
 *   (and its bytes written to a file): at that moment the store lane is empty, and without more
 *   the turn went to the background work waiting. So the sink **holds** the store lane for a
 *   flush (`hold`): while held, a turn that is not a read waits for the lane's next statement
 *   instead of going to background work, within the same `STORE_RUN` bound (the engine idles for
 *   the few milliseconds between two tables; reads still take their turns).
 */
export type Lane = 'read' | 'store' | 'background';

/** Store statements that may go in a row while background statements wait (a flush's four tables). */
export const STORE_RUN = 4;

/** Longest the engine idles under a hold while background work waits (a file write between two tables takes a few ms). */
export const HOLD_IDLE_MS = 50;

export interface EngineGate {
  /** Runs `fn` (one engine statement) when its turn comes; at most one runs at a time. */
  run<T>(lane: Lane, fn: () => Promise<T>): Promise<T>;
  /** Statements waiting per lane (not counting the one running). */
  waiting(): Record<Lane, number>;
  /**
   * Holds the store lane until the returned function is called (once; later calls do nothing):
   * background statements wait for the lane's next statement, at most `STORE_RUN` in a row.
   */
  hold(): () => void;
}

type Start = () => void;

export function createEngineGate(): EngineGate {
  const lanes: Record<Lane, Start[]> = { read: [], store: [], background: [] };
  // FIFO queues with a moving head: shift() on long arrays is linear
  const heads: Record<Lane, number> = { read: 0, store: 0, background: 0 };
  let running = false;
  /** Whether the last statement handed out was a read. */
  let lastRead = false;
  /** Store statements handed out in a row while background statements waited. */
  let storeRun = 0;

  const size = (lane: Lane) => lanes[lane].length - heads[lane];
  const take = (lane: Lane): Start => {
    const q = lanes[lane];
    const w = q[heads[lane]]!;
    q[heads[lane]++] = undefined as unknown as Start;
    if (heads[lane] > 1024 && heads[lane] * 2 > q.length) {
      lanes[lane] = q.slice(heads[lane]);
      heads[lane] = 0;
    }
    lastRead = lane === 'read';
    return w;
  };
  /** Holds of the store lane not yet released. */
  let holds = 0;
  /** Set once the engine has idled `HOLD_IDLE_MS` under a hold: background work may go. */
  let holdExpired = false;
  let holdTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * The next statement that is not a read: store first, background after a run of store turns;
   * none while the store lane is held and empty (within the run's bound) or nothing waits.
   */
  const other = (): Start | undefined => {
    const store = size('store');
    const background = size('background');
    if (store > 0 && (background === 0 || storeRun < STORE_RUN)) {
      storeRun = background === 0 ? 0 : storeRun + 1;
      holdExpired = false;
      return take('store');
    }
    if (background === 0 || (holds > 0 && storeRun < STORE_RUN && store === 0 && !holdExpired)) return undefined;
    storeRun = 0;
    holdExpired = false;
    return take('background');
  };
  const next = (): Start | undefined => {
    const reads = size('read');
    if (reads > 0 && !lastRead) return take('read');
    // after a read, another statement when one may go, else the next read
    return other() ?? (reads > 0 ? take('read') : undefined);
  };
  /** Hands the engine to the next statement, or marks it idle (for `HOLD_IDLE_MS` at most while a hold keeps background work waiting). */
  const release = () => {
    const w = next();
    running = w !== undefined;
    if (w) {
      if (holdTimer) {
        clearTimeout(holdTimer);
        holdTimer = undefined;
      }
      // not returned: `finally(release)` would wait for the next statement too
      void w();
      return;
    }
    // the bound runs from the moment the engine went idle: statements arriving meanwhile do not renew it
    if (holds > 0 && size('background') > 0 && !holdTimer) {
      holdTimer = setTimeout(() => {
        holdTimer = undefined;
        holdExpired = true;
        if (!running) release();
      }, HOLD_IDLE_MS);
      holdTimer.unref?.();
    }
  };

  return {
    run<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
      const go = () => {
        let p: Promise<T>;
        try {
          p = fn();
        } catch (err) {
          p = Promise.reject(err);
        }
        return p.finally(release);
      };
      const queued = new Promise<T>((resolve, reject) => {
        lanes[lane].push(() => go().then(resolve, reject));
      });
      // an idle engine takes the statement at once, unless a hold keeps it from background work
      if (!running) release();
      return queued;
    },
    waiting: () => ({ read: size('read'), store: size('store'), background: size('background') }),
    hold() {
      holds++;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        holds--;
        if (!running) release();
      };
    },
  };
}

/** Connection methods that each run one engine statement. */
const STATEMENT_METHODS = new Set<PropertyKey>(['query', 'exec', 'command', 'insert', 'ping']);

/**
 * A view of a `@clickhouse/client` connection whose statements pass through the gate in `lane`.
 * Other members (close, diagnostics) go to the connection itself, bound to it (it keeps private
 * state).
 */
export function gatedConnection<C extends object>(conn: C, gate: EngineGate, lane: Lane): C {
  return new Proxy(conn, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function') return v;
      const bound = (v as (...a: unknown[]) => unknown).bind(target);
      return STATEMENT_METHODS.has(prop) ? (...a: unknown[]) => gate.run(lane, () => bound(...a) as Promise<unknown>) : bound;
    },
  });
}
