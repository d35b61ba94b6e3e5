/** Jittered exponential backoff under a deadline. Retries only what `isRetryable` accepts. */
export interface RetryOptions {
  /** First delay. Default 100 ms. */
  baseDelayMs?: number;
  /** Largest single delay. Default 5,000 ms. */
  maxDelayMs?: number;
  /** Give up after this long in total. Default 60,000 ms. */
  deadlineMs?: number;
  isRetryable: (err: unknown) => boolean;
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  signal?: AbortSignal;
}

export function backoffDelay(attempt: number, baseDelayMs = 100, maxDelayMs = 5000): number {
  const exp = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
  // full jitter: spreads retries of many replicas apart
  return Math.round(exp / 2 + Math.random() * (exp / 2));
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });

export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const delay = backoffDelay(attempt, opts.baseDelayMs, opts.maxDelayMs);
      const deadline = opts.deadlineMs ?? 60_000;
      if (!opts.isRetryable(err) || Date.now() - started + delay > deadline || opts.signal?.aborted) throw err;
      opts.onRetry?.(err, attempt, delay);
      await sleep(delay, opts.signal);
    }
  }
}
