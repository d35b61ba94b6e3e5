/**
 * CPU time from /proc (Linux): of a process (every thread: the roles, the engine's threads, the
 * Piscina workers) and of the calling thread alone (`/proc/thread-self`), so the load generator's
 * own thread can be subtracted from the process that runs the system in-process.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticks: number | undefined;
export function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** utime + stime in seconds from a /proc stat file; NaN where /proc is not there. */
function statSeconds(path: string): number {
  try {
    const text = readFileSync(path, 'utf8');
    // the command name may hold spaces: fields are counted after its closing parenthesis
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / clockTicks();
  } catch {
    return NaN;
  }
}

/** CPU seconds used so far by a process (default: this one), all threads. */
export const processCpuSeconds = (pid: number | 'self' = 'self') => statSeconds(`/proc/${pid}/stat`);
/** CPU seconds used so far by the calling thread only. */
export const threadCpuSeconds = () => statSeconds('/proc/thread-self/stat');

/** CPU seconds of a process and its children (e.g. the nats-server under its supervisor). */
export function treeCpuSeconds(pid: number): number {
  let total = processCpuSeconds(pid);
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    for (const k of kids) total += treeCpuSeconds(Number(k));
  } catch {
    // no children file (older kernels): the process alone
  }
  return total;
}
