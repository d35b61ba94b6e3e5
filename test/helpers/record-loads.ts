/**
 * Module hooks that append every URL the ESM loader resolves to the file named in
 * `RECORD_LOADS_FILE` (one per line). Registered with `--import` in a child process, so a test can
 * see which of our modules a command loads.
 */
import { appendFileSync } from 'node:fs';

type NextResolve = (specifier: string, context: unknown) => Promise<{ url: string }>;

export async function resolve(specifier: string, context: unknown, next: NextResolve): Promise<{ url: string }> {
  const r = await next(specifier, context);
  if (process.env.RECORD_LOADS_FILE) appendFileSync(process.env.RECORD_LOADS_FILE, `${r.url}\n`);
  return r;
}
