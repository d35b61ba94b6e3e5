import type { KV } from '@nats-io/kv';
import { kvCompareAndSet, kvGet } from '../core/kv.js';

/** Small JSON helpers over one KV bucket (values written with compare-and-set). */
export interface JsonKv {
  get<T>(key: string): Promise<T | undefined>;
  /** Read–modify–write with compare-and-set (core/kv.ts `kvCompareAndSet`). */
  update<T>(key: string, next: (cur: T | undefined) => T | undefined): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  keys(filter: string): Promise<string[]>;
  delete(key: string): Promise<void>;
  readonly kv: KV;
}

export function jsonKv(kv: KV): JsonKv {
  return {
    kv,
    async get<T>(key: string) {
      const e = await kvGet(kv, key);
      return e ? e.json<T>() : undefined;
    },
    async update<T>(key: string, next: (cur: T | undefined) => T | undefined) {
      return (await kvCompareAndSet<T>(kv, key, next)).value;
    },
    async put(key, value) {
      await kv.put(key, JSON.stringify(value));
    },
    async keys(filter) {
      const out: string[] = [];
      for await (const k of await kv.keys(filter)) out.push(k);
      return out;
    },
    async delete(key) {
      await kv.purge(key);
    },
  };
}

/** A KV-token-safe encoding of free text (base64url has only [A-Za-z0-9_-]). */
export const tok = (s: string) => Buffer.from(s, 'utf8').toString('base64url') || '_';
export const untok = (s: string) => Buffer.from(s, 'base64url').toString('utf8');
