/**
 * Harness graphs: the user's agent harness (agents, artifacts such as prompts and tool schemas,
 * relationships) uploaded as JSON, versioned per harness key, and the routing of a problem to one
 * artifact. Graph shape (docs/fixes.md "Harness graph"):
 *   { key?, agents: [{key, name?}], artifacts: [{key, kind, source_path?, prompt_key?, content?, tools?, keywords?, agent?}], relationships: [{from, to, kind?}] }
 * KV keys (bucket th_fixes): harness.<tenant>.<tok(key)> record; hg.<tenant>.<id>.<version>.<n> graph chunks
 * (JetStream messages are limited to 1 MB; graphs go up to 2,000,000 bytes).
 */
import { randomUUID } from 'node:crypto';
import { BadRequestError } from '../core/errors.js';
import { tok, type JsonKv } from './kv-json.js';
import { sha256 } from './prompts.js';
import type { FixType } from './types.js';
import type { DraftRoute } from '../schemas/api/fix-values.js';

export const MAX_GRAPH_BYTES = 2_000_000;
const CHUNK_CHARS = 400_000;
export const ARTIFACT_KINDS = ['prompt', 'tool_schema', 'skill', 'guardrail'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

export interface HarnessArtifact {
  key: string;
  kind: ArtifactKind;
  source_path?: string;
  prompt_key?: string;
  content?: string;
  tools?: string[];
  keywords?: string[];
  agent?: string;
}

export interface HarnessGraph {
  key?: string;
  agents: Array<{ key: string; name?: string }>;
  artifacts: HarnessArtifact[];
  relationships: Array<{ from: string; to: string; kind?: string }>;
}

export interface HarnessVersion {
  versionId: string;
  graphHash: string;
  sourceCommit: string;
  createdAt: string;
  chunks: number;
  counts: { agents: number; artifacts: number; relationships: number };
}

export interface HarnessRecord {
  id: string;
  key: string;
  versions: HarnessVersion[];
  report: { report: unknown; reportHash: string; validationStatus: string; approval: unknown } | null;
  analysisRunIds: string[];
  updatedAt: string;
}

export interface AnalysisRun {
  runId: string;
  harnessId: string;
  status: 'completed' | 'error';
  progress: string[];
  summary: Record<string, unknown>;
  createdAt: string;
}

/** Validates an uploaded graph's shape (400 naming the first problem). */
export function parseGraph(raw: unknown): HarnessGraph {
  const bad = (m: string) => new BadRequestError(`harness graph: ${m}`);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad('must be an object');
  const g = raw as Record<string, unknown>;
  const arr = (name: string) => {
    const v = g[name] ?? [];
    if (!Array.isArray(v)) throw bad(`${name} must be an array`);
    return v as Record<string, unknown>[];
  };
  const agents = arr('agents').map((a, i) => {
    if (typeof a?.key !== 'string' || !a.key) throw bad(`agents[${i}].key must be a non-empty string`);
    return { key: a.key, ...(typeof a.name === 'string' ? { name: a.name } : {}) };
  });
  const artifacts = arr('artifacts').map((a, i) => {
    if (typeof a?.key !== 'string' || !a.key) throw bad(`artifacts[${i}].key must be a non-empty string`);
    if (!ARTIFACT_KINDS.includes(a.kind as ArtifactKind)) throw bad(`artifacts[${i}].kind must be one of ${ARTIFACT_KINDS.join(', ')}`);
    const strs = (v: unknown, n: string) => {
      if (v === undefined) return undefined;
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw bad(`artifacts[${i}].${n} must be an array of strings`);
      return v as string[];
    };
    const str = (v: unknown, n: string) => {
      if (v === undefined) return undefined;
      if (typeof v !== 'string') throw bad(`artifacts[${i}].${n} must be a string`);
      return v;
    };
    const out: HarnessArtifact = { key: a.key, kind: a.kind as ArtifactKind };
    const sp = str(a.source_path, 'source_path');
    if (sp) out.source_path = sp;
    const pk = str(a.prompt_key, 'prompt_key');
    if (pk) out.prompt_key = pk;
    const c = str(a.content, 'content');
    if (c !== undefined) out.content = c;
    const ag = str(a.agent, 'agent');
    if (ag) out.agent = ag;
    const t = strs(a.tools, 'tools');
    if (t) out.tools = t;
    const k = strs(a.keywords, 'keywords');
    if (k) out.keywords = k;
    return out;
  });
  const relationships = arr('relationships').map((r, i) => {
    if (typeof r?.from !== 'string' || typeof r?.to !== 'string') throw bad(`relationships[${i}] needs string from and to`);
    return { from: r.from, to: r.to, ...(typeof r.kind === 'string' ? { kind: r.kind } : {}) };
  });
  return { ...(typeof g.key === 'string' ? { key: g.key } : {}), agents, artifacts, relationships };
}

export interface HarnessStore {
  sync(
    tenant: string,
    input: { graph?: unknown; graphHash?: string; sourceCommit?: string; dryRun: boolean; report?: unknown; reportHash?: string; reportValidationStatus?: string; reportApproval?: unknown },
  ): Promise<Record<string, unknown>>;
  /** The latest graph of every harness of the tenant, merged (routing reads this). */
  latestGraph(tenant: string): Promise<HarnessGraph | null>;
  delete(tenant: string, idOrKey: string): Promise<{ deleted: boolean; versions: number; agents: number; artifacts: number; relationships: number }>;
  analysisRun(tenant: string, runId: string): Promise<AnalysisRun | undefined>;
}

export function createHarnessStore(kv: JsonKv, now: () => number): HarnessStore {
  const iso = () => new Date(now()).toISOString();
  const recKey = (tenant: string, key: string) => `harness.${tenant}.${tok(key)}`;
  const records = async (tenant: string) => {
    const out: HarnessRecord[] = [];
    for (const k of await kv.keys(`harness.${tenant}.*`)) {
      const r = await kv.get<HarnessRecord>(k);
      if (r) out.push(r);
    }
    return out;
  };
  const readGraph = async (tenant: string, id: string, v: HarnessVersion): Promise<HarnessGraph> => {
    let text = '';
    for (let i = 0; i < v.chunks; i++) text += (await kv.get<{ t: string }>(`hg.${tenant}.${id}.${v.versionId}.${i}`))?.t ?? '';
    return JSON.parse(text) as HarnessGraph;
  };
  return {
    async sync(tenant, input) {
      if (input.graph === undefined && input.report === undefined) throw new BadRequestError('harness sync needs a graph or a report');
      let graph: HarnessGraph | undefined;
      let text = '';
      if (input.graph !== undefined) {
        text = JSON.stringify(input.graph);
        if (Buffer.byteLength(text) > MAX_GRAPH_BYTES) throw new BadRequestError(`harness graph is ${Buffer.byteLength(text)} bytes; the limit is ${MAX_GRAPH_BYTES}`);
        graph = parseGraph(input.graph);
      }
      const key = graph?.key ?? 'default';
      const graphHash = text ? sha256(text) : '';
      if (input.graphHash && graphHash && input.graphHash !== graphHash) throw new BadRequestError(`graph_hash ${input.graphHash} does not match the graph (sha256 ${graphHash})`);
      const cur = await kv.get<HarnessRecord>(recKey(tenant, key));
      const latest = cur?.versions.at(-1);
      const unchanged = !!graph && latest?.graphHash === graphHash;
      const counts = graph ? { agents: graph.agents.length, artifacts: graph.artifacts.length, relationships: graph.relationships.length } : undefined;
      if (input.dryRun) return { dry_run: true, harness_key: key, harness_id: cur?.id ?? null, graph_hash: graphHash || null, unchanged, counts: counts ?? null };
      const id = cur?.id ?? randomUUID();
      let version: HarnessVersion | undefined;
      if (graph && !unchanged) {
        const versionId = randomUUID();
        const chunks = Math.max(1, Math.ceil(text.length / CHUNK_CHARS));
        for (let i = 0; i < chunks; i++) await kv.put(`hg.${tenant}.${id}.${versionId}.${i}`, { t: text.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS) });
        version = { versionId, graphHash, sourceCommit: input.sourceCommit ?? '', createdAt: iso(), chunks, counts: counts! };
      }
      const runId = randomUUID();
      const run: AnalysisRun = {
        runId,
        harnessId: id,
        status: 'completed',
        progress: [`graph ${unchanged ? 'unchanged' : version ? 'stored' : 'not given'}`, `${counts?.artifacts ?? latest?.counts.artifacts ?? 0} artifacts indexed for routing`],
        summary: { artifacts_by_kind: graph ? Object.fromEntries(ARTIFACT_KINDS.map((k) => [k, graph!.artifacts.filter((a) => a.kind === k).length])) : {} },
        createdAt: iso(),
      };
      await kv.put(`hrun.${tenant}.${runId}`, run);
      const rec = await kv.update<HarnessRecord>(recKey(tenant, key), (c) => {
        const base: HarnessRecord = c ?? { id, key, versions: [], report: null, analysisRunIds: [], updatedAt: iso() };
        return {
          ...base,
          versions: version ? [...base.versions, version] : base.versions,
          report: input.report !== undefined ? { report: input.report, reportHash: input.reportHash ?? sha256(JSON.stringify(input.report)), validationStatus: input.reportValidationStatus ?? '', approval: input.reportApproval ?? null } : base.report,
          analysisRunIds: [...base.analysisRunIds.slice(-19), runId],
          updatedAt: iso(),
        };
      });
      return {
        dry_run: false,
        harness_key: key,
        harness_id: rec!.id,
        version_id: version?.versionId ?? latest?.versionId ?? null,
        graph_hash: graphHash || latest?.graphHash || null,
        unchanged,
        counts: counts ?? latest?.counts ?? null,
        report_stored: input.report !== undefined,
        analysis_run_id: runId,
      };
    },
    async latestGraph(tenant) {
      const recs = await records(tenant);
      const graphs: HarnessGraph[] = [];
      for (const r of recs) {
        const v = r.versions.at(-1);
        if (v) graphs.push(await readGraph(tenant, r.id, v));
      }
      if (!graphs.length) return null;
      return { agents: graphs.flatMap((g) => g.agents), artifacts: graphs.flatMap((g) => g.artifacts), relationships: graphs.flatMap((g) => g.relationships) };
    },
    async delete(tenant, idOrKey) {
      const r = (await records(tenant)).find((x) => x.id === idOrKey || x.key === idOrKey);
      if (!r) return { deleted: false, versions: 0, agents: 0, artifacts: 0, relationships: 0 };
      const counts = { versions: r.versions.length, agents: 0, artifacts: 0, relationships: 0 };
      for (const v of r.versions) {
        counts.agents += v.counts.agents;
        counts.artifacts += v.counts.artifacts;
        counts.relationships += v.counts.relationships;
        for (let i = 0; i < v.chunks; i++) await kv.delete(`hg.${tenant}.${r.id}.${v.versionId}.${i}`);
      }
      await kv.delete(recKey(tenant, r.key));
      return { deleted: true, ...counts };
    },
    analysisRun: (tenant, runId) => (/^[A-Za-z0-9-]{1,64}$/.test(runId) ? kv.get<AnalysisRun>(`hrun.${tenant}.${runId}`) : Promise.resolve(undefined)),
  };
}

export interface RouteEvidence {
  /** Tools whose calls failed in the evidence conversations, with counts. */
  failingTools: Record<string, number>;
  /** Problem display name, cause statement and rubric text. */
  text: string;
}

export interface RouteDecision {
  fixType: Exclude<FixType, 'UNROUTED'>;
  artifact: HarnessArtifact;
  confidence: number;
}

const KIND_TYPE: Record<ArtifactKind, RouteDecision['fixType']> = { prompt: 'PROMPT', tool_schema: 'TOOL_SCHEMA', skill: 'SKILL', guardrail: 'GUARDRAIL' };
const words = (s: string) => new Set((s.toLowerCase().match(/[a-z][a-z0-9_]{3,}/g) ?? []).filter((w) => !STOP.has(w)));
const STOP = new Set(['that', 'this', 'with', 'from', 'when', 'then', 'than', 'they', 'them', 'their', 'have', 'does', 'into', 'about', 'user', 'agent', 'were', 'will', 'would', 'should']);

/**
 * Routes a problem to one harness artifact from the evidence (pure). A tool-schema artifact that
 * declares a failing tool scores by the share of failures it covers; any artifact scores by word
 * overlap of its key, keywords and tools with the problem text; prompts carry a small prior (the
 * system prompt is where behaviour is steered). `prompt` considers prompt artifacts only.
 * Returns null when nothing scores.
 */
export function routeProblem(graph: HarnessGraph | null, ev: RouteEvidence, requested: DraftRoute): RouteDecision | null {
  if (!graph) return null;
  const problemWords = words(ev.text);
  const totalFailures = Object.values(ev.failingTools).reduce((a, b) => a + b, 0);
  let best: RouteDecision | null = null;
  for (const a of graph.artifacts) {
    if (requested === 'prompt' && a.kind !== 'prompt') continue;
    const artWords = words([a.key, ...(a.keywords ?? []), ...(a.tools ?? [])].join(' '));
    let overlap = 0;
    for (const w of artWords) if (problemWords.has(w)) overlap++;
    let score = artWords.size ? Math.min(0.5, overlap / Math.max(1, Math.min(artWords.size, 4)) * 0.5) : 0;
    const failures = (a.tools ?? []).reduce((n, t) => n + (ev.failingTools[t] ?? 0), 0);
    if (a.kind === 'tool_schema' && failures > 0 && totalFailures > 0) score += 0.3 + 0.2 * (failures / totalFailures);
    if (a.kind === 'prompt') score += 0.3 + (failures > 0 ? 0.1 : 0);
    if (score <= 0.3 && a.kind !== 'prompt') continue;
    const confidence = Math.round(Math.min(1, score) * 100) / 100;
    if (!best || confidence > best.confidence) best = { fixType: KIND_TYPE[a.kind], artifact: a, confidence };
  }
  return best;
}
