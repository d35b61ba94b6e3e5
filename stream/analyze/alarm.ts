/**
 * The analyze consumer's wait between batches: a sleep that ends early when something is due
 * before it would end (or before `wakeForDueBeforeMs`, when given), or on stop.
 */
export interface Alarm {
  sleep(ms: number, wakeForDueBeforeMs?: number): Promise<void>;
  /** Ends the sleep under way when `atMs` is before its end (`-Infinity`: always). */
  wakeBefore(atMs: number): void;
}

export function createAlarm(): Alarm {
  let until = Infinity;
  let wake: (() => void) | undefined;
  return {
    sleep: (ms, wakeForDueBeforeMs) =>
      new Promise<void>((resolve) => {
        until = wakeForDueBeforeMs ?? Date.now() + ms;
        const timer = setTimeout(() => wake?.(), ms);
        wake = () => {
          clearTimeout(timer);
          wake = undefined;
          until = Infinity;
          resolve();
        };
      }),
    wakeBefore(atMs) {
      if (atMs < until) wake?.();
    },
  };
}
