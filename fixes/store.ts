/**
 * Fix objects in the th_fixes JetStream KV bucket (compare-and-set through core/kv.ts) and their
 * transitions in ClickHouse `fix_history`. Keys:
 *   fix.<tenant>.<fixId>        the stored fix (StoredFix JSON)
 *   active.<tenant>.<problemId> the problem's current fix id (drafting is create-if-absent on it)
 *   ref.<SHORTREF>              {tenant, fixId}: short refs are unique across tenants (merge notifications carry only them)
 *   fixhist.<tenant>.<fixId>.<revision>  a fix_history row whose insert failed (see below)
 *
 * The KV entry is the fix; `fix_history` is its record. A transition is written to KV first (the
 * compare-and-set decides it), then its row is inserted. When ClickHouse refuses the insert the
 * transition stands (the caller gets its answer) and the row is parked under `fixhist.`; the next
 * transition of the fix and every history read insert parked rows again (rows are keyed by
 * revision, so a repeated insert converges) and drop them once stored. A history read that cannot
 * store them fails (503) rather than answer an incomplete history.
 */
import type { KV } from '@nats-io/kv';
import type { Store } from '../core/clickhouse.js';
import { KvConflictError, KvExistsError, kvCreate, kvGet, kvUpdate } from '../core/kv.js';
import type { StoredFix } from './types.js';

export interface FixEntry {
  fix: StoredFix;
  revision: number;
}

export interface Transition {
  trigger: string;
  actor: string;
  reason?: string;
}

export interface FixStore {
  get(tenant: string, fixId: string): Promise<FixEntry | undefined>;
  list(tenant: string): Promise<FixEntry[]>;
  byShortRef(shortRef: string): Promise<{ tenant: string; fixId: string } | undefined>;
  /** Creates the fix and claims its short ref; `KvExistsError` when the ref is taken. */
  create(fix: StoredFix, t: Transition): Promise<FixEntry>;
  /** Writes `next` if the fix is still at `revision`; `KvConflictError` otherwise. Records a transition when the status changed. */
  update(prev: FixEntry, next: StoredFix, t: Transition): Promise<FixEntry>;
  activeFixId(tenant: string, problemId: string): Promise<{ fixId: string; revision: number } | undefined>;
  /** Points the problem's active slot at `fixId` if it is still at `revision` (0: empty); false when another writer won. */
  setActive(tenant: string, problemId: string, fixId: string, revision: number): Promise<boolean>;
  history(tenant: string, fixId: string): Promise<Array<{ revision: number; from_status: string; to_status: string; trigger: string; reason: string; actor: string; at: string }>>;
}

const fixKey = (tenant: string, id: string) => `fix.${tenant}.${id}`;
const activeKey = (tenant: string, problemId: string) => `active.${tenant}.${problemId}`;
const refKey = (ref: string) => `ref.${ref}`;
const pendingPrefix = (tenant: string, fixId: string) => `fixhist.${tenant}.${fixId}.`;

type HistoryRow = Record<string, unknown>;

export function createFixStore(kv: KV, store: Store): FixStore {
  const insertRows = (rows: HistoryRow[]) => store.insert('fix_history', rows, { async_insert: 0 });
  const parkedKeys = async (tenant: string, fixId: string) => {
    const keys: string[] = [];
    for await (const k of await kv.keys(pendingPrefix(tenant, fixId) + '*')) keys.push(k);
    return keys;
  };
  /** Inserts the parked rows of a fix (and `extra`), then drops what was stored. Throws when the insert fails. */
  const flush = async (tenant: string, fixId: string, extra: HistoryRow[] = []) => {
    const keys = await parkedKeys(tenant, fixId);
    const parked: HistoryRow[] = [];
    for (const k of keys) {
      const e = await kvGet(kv, k);
      if (e) parked.push(e.json<HistoryRow>());
    }
    if (parked.length || extra.length) await insertRows([...parked, ...extra]);
    for (const k of keys) await kv.purge(k);
  };
  const record = async (prev: StoredFix | undefined, next: StoredFix, revision: number, t: Transition) => {
    if (prev && prev.status === next.status) return;
    const row: HistoryRow = {
      tenant_id: next.tenantId,
      fix_id: next.id,
      revision,
      at: next.updatedAt,
      problem_id: next.problemId,
      short_ref: next.shortRef,
      from_status: prev?.status ?? '',
      to_status: next.status,
      trigger: t.trigger,
      reason: t.reason ?? next.statusReason,
      actor: t.actor,
      fix: JSON.stringify(next),
    };
    try {
      await flush(next.tenantId, next.id, [row]);
    } catch {
      // the transition is already written: park its row for the next transition or history read
      // (if even that fails, the error reaches the caller, whose fix has changed: read it first)
      await kv.put(`${pendingPrefix(next.tenantId, next.id)}${revision}`, JSON.stringify(row));
    }
  };
  const self: FixStore = {
    async get(tenant, fixId) {
      if (!/^[A-Za-z0-9-]{1,64}$/.test(fixId)) return undefined;
      const e = await kvGet(kv, fixKey(tenant, fixId));
      return e ? { fix: e.json<StoredFix>(), revision: e.revision } : undefined;
    },
    async list(tenant) {
      const keys: string[] = [];
      for await (const k of await kv.keys(`fix.${tenant}.*`)) keys.push(k);
      const out: FixEntry[] = [];
      for (const k of keys) {
        const e = await kvGet(kv, k);
        if (e) out.push({ fix: e.json<StoredFix>(), revision: e.revision });
      }
      return out;
    },
    async byShortRef(shortRef) {
      if (!/^[0-9A-Z]{8}$/.test(shortRef)) return undefined;
      const e = await kvGet(kv, refKey(shortRef));
      return e ? e.json<{ tenant: string; fixId: string }>() : undefined;
    },
    async create(fix, t) {
      await kvCreate(kv, refKey(fix.shortRef), JSON.stringify({ tenant: fix.tenantId, fixId: fix.id }));
      const revision = await kvCreate(kv, fixKey(fix.tenantId, fix.id), JSON.stringify(fix));
      await record(undefined, fix, revision, t);
      return { fix, revision };
    },
    async update(prev, next, t) {
      const revision = await kvUpdate(kv, fixKey(next.tenantId, next.id), JSON.stringify(next), prev.revision);
      await record(prev.fix, next, revision, t);
      return { fix: next, revision };
    },
    async activeFixId(tenant, problemId) {
      const e = await kvGet(kv, activeKey(tenant, problemId));
      return e ? { fixId: e.string(), revision: e.revision } : undefined;
    },
    async setActive(tenant, problemId, fixId, revision) {
      try {
        if (revision === 0) await kvCreate(kv, activeKey(tenant, problemId), fixId);
        else await kvUpdate(kv, activeKey(tenant, problemId), fixId, revision);
        return true;
      } catch (err) {
        if (err instanceof KvExistsError || err instanceof KvConflictError) return false;
        throw err;
      }
    },
    async history(tenant, fixId) {
      if (/^[A-Za-z0-9-]{1,64}$/.test(fixId)) await flush(tenant, fixId);
      const rows = await store.query<{ revision: string; from_status: string; to_status: string; trigger: string; reason: string; actor: string; at: string }>(
        `SELECT revision, from_status, to_status, trigger, reason, actor, at FROM {{db}}.fix_history FINAL WHERE tenant_id = {tenant:String} AND fix_id = {fix:String} ORDER BY revision`,
        { tenant, fix: fixId },
      );
      return rows.map((r) => ({ ...r, revision: Number(r.revision) }));
    },
  };
  return self;
}
