/**
 * The threads of a process from /proc (Linux), grouped by what runs on them: the main thread, the
 * analysis worker (the one thread the stream role lowers to nice 19), the embedded engine's own
 * threads (named by the engine: `ThreadPool`, `MergeMutate`, …) and the rest of Node's threads
 * (V8's platform threads, libuv's pool, where the engine's calls run, and the other worker isolates,
 * which the kernel names alike). Pure parsing and grouping, so that a probe can compare two samples.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadSample {
  tid: number;
  /** The kernel's name of the thread (15 characters at most). */
  comm: string;
  nice: number;
  /** utime + stime in clock ticks. */
  ticks: number;
}

/** One line of /proc/<pid>/task/<tid>/stat; undefined when it does not parse. */
export function parseStatLine(tid: number, line: string): ThreadSample | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  // fields after the name, numbered from 3 (state) in proc(5): utime 14, stime 15, nice 19
  const rest = line.slice(close + 2).split(' ');
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  const nice = Number(rest[16]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime) || !Number.isFinite(nice)) return undefined;
  return { tid, comm: line.slice(open + 1, close), nice, ticks: utime + stime };
}

/** Every thread of a process now (threads that end between the listing and the read are left out). */
export function sampleThreads(pid: number | 'self' = 'self'): ThreadSample[] {
  const dir = `/proc/${pid}/task`;
  const out: ThreadSample[] = [];
  for (const name of readdirSync(dir)) {
    try {
      const s = parseStatLine(Number(name), readFileSync(`${dir}/${name}/stat`, 'utf8'));
      if (s) out.push(s);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** The group a thread's CPU is counted in. */
export function threadGroup(t: Pick<ThreadSample, 'tid' | 'comm' | 'nice'>, mainTid: number): string {
  if (t.tid === mainTid) return 'main thread';
  if (t.comm.startsWith('node')) return t.nice >= 19 ? 'analysis worker (nice 19)' : 'other Node threads';
  // the engine numbers some of its threads' names (`QueryPipelineEx3`): one group per kind
  return `engine: ${t.comm.replace(/\d+$/, '')}`;
}

/**
 * CPU ticks per group between two samples of one process. A thread that started after the first
 * sample counts from zero; one that ended before the second is lost (its ticks go to no thread in
 * /proc), so a probe samples the process, not threads that come and go, as its total.
 */
export function ticksByGroup(before: readonly ThreadSample[], after: readonly ThreadSample[], mainTid: number): Map<string, { ticks: number; threads: number }> {
  const groups = new Map<string, { ticks: number; threads: number }>();
  for (const t of threadTicks(before, after)) {
    const key = threadGroup(t, mainTid);
    const g = groups.get(key) ?? { ticks: 0, threads: 0 };
    g.ticks += t.ticks;
    g.threads++;
    groups.set(key, g);
  }
  return groups;
}

/** Each thread of the second sample with the ticks it used since the first (from zero if it started since). */
export function threadTicks(before: readonly ThreadSample[], after: readonly ThreadSample[]): ThreadSample[] {
  const start = new Map(before.map((t) => [t.tid, t.ticks]));
  return after.map((t) => ({ ...t, ticks: Math.max(0, t.ticks - (start.get(t.tid) ?? 0)) }));
}

/**
 * A statement's shape, so that statements of one kind add up: the session SETs the client puts in
 * front are dropped, string literals become `?`, numbers `N`, whitespace one space; the leading
 * comment of a named query (sql/queries) is kept, as it says which query it is.
 */
export function statementShape(sql: string, max = 120): string {
  return sql
    .replace(/^(\s*SET [^;]*;\s*)+/, '')
    .replace(/\s+/g, ' ')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'?'")
    .replace(/\b\d+\b/g, 'N')
    .trim()
    .slice(0, max);
}

/**
 * The threads whose CPU is a statement's own: not the main thread, not a worker isolate at nice 19,
 * not the engine's merges, and with at least `share` of their ticks in the window gained inside
 * statement calls (libuv's threads that run the calls, the engine's query threads). V8's platform
 * threads and the decode worker run beside the calls as much as outside them and fall below it.
 */
export function statementThreads(window: readonly ThreadSample[], inside: ReadonlyMap<string, ReadonlyMap<number, number>>, mainTid: number, share = 0.8): Set<number> {
  const during = new Map<number, number>();
  for (const by of inside.values()) for (const [tid, t] of by) during.set(tid, (during.get(tid) ?? 0) + t);
  const out = new Set<number>();
  for (const t of window) {
    if (t.tid === mainTid || t.nice >= 19 || t.comm.startsWith('MergeMutate') || t.ticks === 0) continue;
    if ((during.get(t.tid) ?? 0) >= share * t.ticks) out.add(t.tid);
  }
  return out;
}
