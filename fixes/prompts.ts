/**
 * Prompt registry: prompts by key with immutable content-addressed versions and the labels
 * dev / staging / prod. Sync takes the complete set each time (absent keys are removed from the
 * live set); a new prompt's first version is labeled `prod`, later versions are unlabeled until
 * promoted. KV keys (bucket th_fixes):
 *   prompt.<tenant>.<tok(key)>    the prompt record (versions metadata, labels)
 *   pv.<tenant>.<versionId>       one version's content
 */
import { createHash, randomUUID } from 'node:crypto';
import { BadRequestError, NotFoundError } from '../core/errors.js';
import { tok, type JsonKv } from './kv-json.js';
import type { PromptSyncAction } from '../schemas/api/fix-values.js';

export const PROMPT_LABELS = ['dev', 'staging', 'prod'] as const;
export type PromptLabel = (typeof PROMPT_LABELS)[number];

export interface PromptEntryInput {
  key: string;
  content: string;
  name?: string;
  description?: string;
  category?: string;
  systemPrompt?: string;
  messages?: unknown[];
  variables?: unknown[];
  variablesSchema?: Record<string, unknown>;
  modelConfig?: Record<string, unknown>;
  toolRefs?: unknown[];
  responseSchema?: Record<string, unknown>;
  sourcePath?: string;
}

export interface PromptVersionMeta {
  versionId: string;
  contentHash: string;
  createdAt: string;
  source: 'sync' | 'proposer' | 'fix';
  changelog?: string;
  risks?: string;
  sourceCommit?: string;
}

export interface PromptRecord {
  promptId: string;
  key: string;
  name: string;
  description: string;
  category: string;
  sourcePath: string;
  removed: boolean;
  attributes: Omit<PromptEntryInput, 'key' | 'content' | 'name' | 'description' | 'category' | 'sourcePath'>;
  currentVersionId: string;
  versions: PromptVersionMeta[];
  labels: Partial<Record<PromptLabel, string>>;
  updatedAt: string;
}

export const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

export interface SyncResult {
  dryRun: boolean;
  prompts: Array<{ key: string; promptId: string | null; contentHash: string; versionId: string | null; action: PromptSyncAction }>;
  removed: string[];
}

export interface PromptRegistry {
  sync(tenant: string, entries: PromptEntryInput[], opts: { dryRun: boolean; sourceCommit?: string }): Promise<SyncResult>;
  get(tenant: string, key: string): Promise<PromptRecord | undefined>;
  getById(tenant: string, promptId: string): Promise<PromptRecord | undefined>;
  content(tenant: string, versionId: string): Promise<string | undefined>;
  promote(tenant: string, key: string, label: PromptLabel, versionId: string): Promise<PromptRecord>;
  /** Registers a new unlabeled version of an existing prompt. */
  addVersion(tenant: string, promptId: string, content: string, meta: { source: PromptVersionMeta['source']; changelog?: string; risks?: string }): Promise<PromptVersionMeta>;
  list(tenant: string): Promise<PromptRecord[]>;
}

export function createPromptRegistry(kv: JsonKv, now: () => number): PromptRegistry {
  const key = (tenant: string, k: string) => `prompt.${tenant}.${tok(k)}`;
  const iso = () => new Date(now()).toISOString();
  const list = async (tenant: string) => {
    const out: PromptRecord[] = [];
    for (const k of await kv.keys(`prompt.${tenant}.*`)) {
      const r = await kv.get<PromptRecord>(k);
      if (r) out.push(r);
    }
    return out;
  };
  const putVersion = async (tenant: string, versionId: string, content: string) => kv.put(`pv.${tenant}.${versionId}`, { content });
  const reg: PromptRegistry = {
    async sync(tenant, entries, { dryRun, sourceCommit }) {
      const seen = new Set<string>();
      for (const e of entries) {
        if (seen.has(e.key)) throw new BadRequestError(`prompt key "${e.key}" appears twice`);
        seen.add(e.key);
      }
      const result: SyncResult = { dryRun, prompts: [], removed: [] };
      for (const e of entries) {
        const hash = sha256(e.content);
        const cur = await kv.get<PromptRecord>(key(tenant, e.key));
        const curHash = cur && !cur.removed ? cur.versions.find((v) => v.versionId === cur.currentVersionId)?.contentHash : undefined;
        if (curHash === hash) {
          result.prompts.push({ key: e.key, promptId: cur!.promptId, contentHash: hash, versionId: cur!.currentVersionId, action: 'unchanged' });
          if (!dryRun) await kv.update<PromptRecord>(key(tenant, e.key), (c) => (c ? { ...c, ...meta(e, c), updatedAt: iso() } : c));
          continue;
        }
        const action = cur && !cur.removed ? 'updated' : 'created';
        if (dryRun) {
          result.prompts.push({ key: e.key, promptId: cur?.promptId ?? null, contentHash: hash, versionId: null, action });
          continue;
        }
        const versionId = randomUUID();
        await putVersion(tenant, versionId, e.content);
        const v: PromptVersionMeta = { versionId, contentHash: hash, createdAt: iso(), source: 'sync', ...(sourceCommit ? { sourceCommit } : {}) };
        const written = await kv.update<PromptRecord>(key(tenant, e.key), (c) => {
          if (!c) {
            return { promptId: randomUUID(), key: e.key, ...meta(e), removed: false, currentVersionId: versionId, versions: [v], labels: { prod: versionId }, updatedAt: iso() };
          }
          return { ...c, ...meta(e, c), removed: false, currentVersionId: versionId, versions: [...c.versions, v], labels: Object.keys(c.labels).length ? c.labels : { prod: versionId }, updatedAt: iso() };
        });
        result.prompts.push({ key: e.key, promptId: written!.promptId, contentHash: hash, versionId, action });
      }
      for (const r of await list(tenant)) {
        if (r.removed || seen.has(r.key)) continue;
        result.removed.push(r.key);
        if (!dryRun) await kv.update<PromptRecord>(key(tenant, r.key), (c) => (c ? { ...c, removed: true, updatedAt: iso() } : c));
      }
      return result;
    },
    get: (tenant, k) => kv.get<PromptRecord>(key(tenant, k)),
    async getById(tenant, promptId) {
      return (await list(tenant)).find((r) => r.promptId === promptId);
    },
    async content(tenant, versionId) {
      if (!/^[A-Za-z0-9-]{1,64}$/.test(versionId)) return undefined;
      return (await kv.get<{ content: string }>(`pv.${tenant}.${versionId}`))?.content;
    },
    async promote(tenant, k, label, versionId) {
      const cur = await kv.get<PromptRecord>(key(tenant, k));
      if (!cur) throw new NotFoundError(`no prompt "${k}"`);
      if (!cur.versions.some((v) => v.versionId === versionId)) throw new NotFoundError(`prompt "${k}" has no version ${versionId}`);
      return (await kv.update<PromptRecord>(key(tenant, k), (c) => (c ? { ...c, labels: { ...c.labels, [label]: versionId }, updatedAt: iso() } : c)))!;
    },
    async addVersion(tenant, promptId, content, m) {
      const r = await reg.getById(tenant, promptId);
      if (!r) throw new NotFoundError(`no prompt ${promptId}`);
      const versionId = randomUUID();
      await putVersion(tenant, versionId, content);
      const v: PromptVersionMeta = { versionId, contentHash: sha256(content), createdAt: iso(), source: m.source, ...(m.changelog ? { changelog: m.changelog } : {}), ...(m.risks ? { risks: m.risks } : {}) };
      await kv.update<PromptRecord>(key(tenant, r.key), (c) => (c ? { ...c, versions: [...c.versions, v], updatedAt: iso() } : c));
      return v;
    },
    list,
  };
  return reg;
}

function meta(e: PromptEntryInput, cur?: PromptRecord) {
  const { key: _k, content: _c, name, description, category, sourcePath, ...attributes } = e;
  return {
    name: name ?? cur?.name ?? e.key,
    description: description ?? cur?.description ?? '',
    category: category ?? cur?.category ?? '',
    sourcePath: sourcePath ?? cur?.sourcePath ?? '',
    attributes,
  };
}
