import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { BadRequestError, ForbiddenError, UnauthorizedError } from './errors.js';
import { KvExistsError, kvCreate } from './kv.js';
import { TENANT_PATTERN } from '../schemas/subjects.js';

import { KEY_SCOPES, type KeyRole, type KeyScope } from '../schemas/key-scopes.js';

export { KEY_SCOPES, type KeyRole, type KeyScope };

/** What the key store keeps per key. The secret itself is never stored, only its SHA-256. */
export interface KeyRecord {
  id: string;
  tenant: string;
  role: KeyRole;
  scopes: KeyScope[];
  signed: boolean;
  label: string;
  created_at: string;
  revoked_at: string | null;
}

export interface Principal {
  keyId: string;
  tenant: string;
  role: KeyRole;
  scopes: KeyScope[];
}

export interface KeyStore {
  /** Mints a signed key; the secret is in the result and nowhere else. */
  create(opts: { tenant: string; role: KeyRole; scopes?: KeyScope[]; label?: string }): Promise<{ key: string; record: KeyRecord }>;
  /** Registers an exact string as a key (bootstrap and legacy keys). Returns false if it already exists. */
  register(key: string, opts: { tenant: string; role: KeyRole; scopes?: KeyScope[]; label?: string }): Promise<boolean>;
  list(opts?: { tenant?: string }): Promise<KeyRecord[]>;
  /** Revokes by key id; takes effect on the next request. Returns false for an unknown id. */
  revoke(id: string): Promise<boolean>;
  /**
   * Resolves a presented key. Signed keys carry their tenant; unsigned (legacy) keys resolve through
   * the store and, when a tenant is given separately, must belong to it. Throws 401 / 403 errors.
   */
  authenticate(presented: string | undefined, opts?: { scope?: KeyScope; tenant?: string; requireTenantForLegacy?: boolean }): Promise<Principal>;
  isEmpty(): Promise<boolean>;
  /** First start: the bootstrap key, or a freshly minted admin key of tenant `default`, exactly once. */
  bootstrap(bootstrapKey: string): Promise<{ kind: 'registered' | 'minted' | 'none'; key?: string }>;
}

const PREFIX = 'th';
/** Presented keys whose signature and hash are remembered (core/keys.ts `checked`). */
const VERIFIED_KEYS_MAX = 10_000;
const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
const b64u = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export function createKeyStore(kv: KV, secret: string, now: () => Date = () => new Date()): KeyStore {
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest().subarray(0, 18).toString('base64url');

  /** `th.<base64url tenant>.<random>.<signature>`; returns the tenant when the signature is valid. */
  const verifySigned = (key: string): { tenant: string } | 'unsigned' | 'bad' => {
    const parts = key.split('.');
    if (parts.length !== 4 || parts[0] !== PREFIX) return 'unsigned';
    const [, t, r, sig] = parts as [string, string, string, string];
    const expected = Buffer.from(sign(`${t}.${r}`));
    const got = Buffer.from(sig);
    if (expected.length !== got.length || !timingSafeEqual(expected, got)) return 'bad';
    return { tenant: Buffer.from(t, 'base64url').toString('utf8') };
  };

  /**
   * The CPU part of checking a presented key (its signature and its hash), remembered for the most
   * recent keys: a client sends the same key on every request. Bounded (oldest forgotten first);
   * only what the key itself determines is kept, never the record, so revocation stays exact.
   */
  const verified = new Map<string, { signed: ReturnType<typeof verifySigned>; hash: string }>();
  const checked = (presented: string) => {
    let v = verified.get(presented);
    if (!v) {
      v = { signed: verifySigned(presented), hash: hashKey(presented) };
      if (verified.size >= VERIFIED_KEYS_MAX) verified.delete(verified.keys().next().value as string);
      verified.set(presented, v);
    }
    return v;
  };

  const checkTenant = (tenant: string) => {
    if (!TENANT_PATTERN.test(tenant)) throw new BadRequestError(`tenant must match ${TENANT_PATTERN.source}`);
  };
  const checkScopes = (scopes: KeyScope[]) => {
    for (const s of scopes) if (!KEY_SCOPES.includes(s)) throw new BadRequestError(`unknown scope "${s}"; allowed: ${KEY_SCOPES.join(', ')}`);
  };
  const read = async (hash: string): Promise<KeyRecord | undefined> => {
    const e = await kv.get(`k.${hash}`);
    if (!e || e.operation !== 'PUT' || e.value.length === 0) return undefined;
    return e.json<KeyRecord>();
  };
  /**
   * The record as of a read sent after the caller asked: requests that ask for the same key in one
   * turn of the event loop share one read, sent at the end of that turn (`setImmediate`). A read
   * already on its way is never joined, so every request sees a revocation that completed before
   * it arrived, as a read of its own would.
   */
  const unsent = new Map<string, Promise<KeyRecord | undefined>>();
  const freshRead = (hash: string): Promise<KeyRecord | undefined> => {
    let p = unsent.get(hash);
    if (!p) {
      p = new Promise<KeyRecord | undefined>((resolve, reject) => {
        setImmediate(() => {
          unsent.delete(hash);
          read(hash).then(resolve, reject);
        });
      });
      unsent.set(hash, p);
    }
    return p;
  };
  const put = async (hash: string, record: KeyRecord, createOnly: boolean) => {
    const data = JSON.stringify(record);
    if (createOnly) await kvCreate(kv, `k.${hash}`, data);
    else await kv.put(`k.${hash}`, data);
  };
  const allHashes = async () => {
    const out: string[] = [];
    for await (const k of await kv.keys('k.>')) out.push(k.slice(2));
    return out;
  };

  const store: KeyStore = {
    async create({ tenant, role, scopes = [...KEY_SCOPES], label = '' }) {
      checkTenant(tenant);
      checkScopes(scopes);
      const t = b64u(tenant);
      const r = randomBytes(24).toString('base64url');
      const key = `${PREFIX}.${t}.${r}.${sign(`${t}.${r}`)}`;
      const hash = hashKey(key);
      const record: KeyRecord = { id: hash.slice(0, 16), tenant, role, scopes, signed: true, label, created_at: now().toISOString(), revoked_at: null };
      await put(hash, record, true);
      return { key, record };
    },
    async register(key, { tenant, role, scopes = [...KEY_SCOPES], label = '' }) {
      checkTenant(tenant);
      checkScopes(scopes);
      const hash = hashKey(key);
      const record: KeyRecord = { id: hash.slice(0, 16), tenant, role, scopes, signed: false, label, created_at: now().toISOString(), revoked_at: null };
      try {
        await put(hash, record, true);
        return true;
      } catch (err) {
        if (err instanceof KvExistsError) return false;
        throw err;
      }
    },
    async list({ tenant } = {}) {
      const out: KeyRecord[] = [];
      for (const h of await allHashes()) {
        const r = await read(h);
        if (r && (!tenant || r.tenant === tenant)) out.push(r);
      }
      return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
    },
    async revoke(id) {
      for (const h of await allHashes()) {
        if (!h.startsWith(id)) continue;
        const r = await read(h);
        if (!r) continue;
        if (!r.revoked_at) await put(h, { ...r, revoked_at: now().toISOString() }, false);
        return true;
      }
      return false;
    },
    async authenticate(presented, opts = {}) {
      if (!presented) throw new UnauthorizedError('API key is required', 'key_required');
      const { signed, hash } = checked(presented);
      if (signed === 'bad') throw new UnauthorizedError('invalid API key', 'key_invalid');
      // the record is read for every request (shared only with requests of the same turn): a
      // revocation counts from the next request on
      const record = await freshRead(hash);
      if (!record) throw new UnauthorizedError('invalid API key', 'key_invalid');
      if (record.revoked_at) throw new UnauthorizedError('API key has been revoked', 'key_revoked');
      if (signed !== 'unsigned' && signed.tenant !== record.tenant) throw new UnauthorizedError('invalid API key', 'key_invalid');
      if (signed === 'unsigned' && opts.requireTenantForLegacy && !opts.tenant) {
        throw new UnauthorizedError('this API key is unsigned: give tenant_id alongside it', 'tenant_required');
      }
      if (opts.tenant && opts.tenant !== record.tenant) throw new UnauthorizedError('API key does not belong to this tenant', 'tenant_mismatch');
      if (opts.scope && !record.scopes.includes(opts.scope)) throw new ForbiddenError(`API key lacks the "${opts.scope}" scope`);
      return { keyId: record.id, tenant: record.tenant, role: record.role, scopes: record.scopes };
    },
    async isEmpty() {
      return (await allHashes()).length === 0;
    },
    async bootstrap(bootstrapKey) {
      if (!(await store.isEmpty())) return { kind: 'none' };
      if (bootstrapKey) {
        // create-only: replicas starting together register it once
        const created = await store.register(bootstrapKey, { tenant: 'default', role: 'admin', label: 'bootstrap' });
        return { kind: created ? 'registered' : 'none' };
      }
      // create-if-absent marker: among replicas starting together exactly one mints
      try {
        await kvCreate(kv, 'bootstrap', now().toISOString());
      } catch (err) {
        if (err instanceof KvExistsError) return { kind: 'none' };
        throw err;
      }
      const { key } = await store.create({ tenant: 'default', role: 'admin', label: 'first start' });
      return { kind: 'minted', key };
    },
  };
  return store;
}
