/**
 * Skills: a registry of SKILL.md documents (pushed from the harness repository, no-op on an
 * unchanged hash) and generation of SKILL.md proposals by mining the conversations of each
 * use-case cluster (taxonomy) that ended without a negative signal. KV keys (bucket th_fixes):
 *   skill.<tenant>.<tok(key)>   registry entry         skprop.<tenant>.<id>   proposal
 *   skrun.<tenant>.<runId>      generation run         sklast.<tenant>        latest run id
 */
import { randomUUID } from 'node:crypto';
import { namedQuery, type Store } from '../core/clickhouse.js';
import { NotFoundError } from '../core/errors.js';
import { tok, type JsonKv } from './kv-json.js';
import { sha256 } from './prompts.js';

export interface SkillEntry {
  key: string;
  name: string;
  skillMd: string;
  description: string;
  sourcePath: string;
  contentHash: string;
  sourceCommit: string;
  status: 'approved';
  updatedAt: string;
}

export interface SkillProposal {
  proposal_id: string;
  generation_run_id: string;
  key: string;
  name: string;
  description: string;
  skill_md: string;
  content_hash: string;
  cluster_id: string;
  evidence: { conversations: number; successful: number; sample_conversation_ids: string[] };
  status: 'ready_for_pr' | 'applied';
  applied_by: string | null;
  applied_at: string | null;
  created_at: string;
}

export interface SkillsRun {
  run_id: string;
  status: 'completed' | 'error';
  clustering_run_id: string | null;
  proposals: number;
  warnings: string[];
  options: Record<string, unknown>;
  started_at: string;
  completed_at: string;
}

export interface SkillsService {
  gen(tenant: string, options: Record<string, unknown>): Promise<SkillsRun>;
  run(tenant: string, runId?: string): Promise<SkillsRun | undefined>;
  list(tenant: string, status: 'approved' | 'proposed' | 'all'): Promise<Array<Record<string, unknown>>>;
  push(
    tenant: string,
    skills: Array<{ key: string; name: string; skillMd: string; description?: string; sourcePath?: string; contentHash?: string; sourceCommit?: string }>,
    opts: { dryRun: boolean; sourceCommit?: string },
  ): Promise<{ dry_run: boolean; skills: Array<{ key: string; content_hash: string; action: 'created' | 'updated' | 'unchanged' }> }>;
  proposals(tenant: string, status: string, generationRunId?: string): Promise<SkillProposal[]>;
  proposal(tenant: string, id: string): Promise<SkillProposal>;
  markApplied(tenant: string, id: string, appliedBy: string): Promise<SkillProposal>;
}

const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** Conversation window of a generation run: start_at/end_at, else lookback_hours (default 30 days) before now; at most max_sessions. */
function window(options: Record<string, unknown>, nowMs: number) {
  const end = typeof options.end_at === 'string' ? Date.parse(options.end_at) : nowMs;
  const hours = typeof options.lookback_hours === 'number' ? options.lookback_hours : 24 * 30;
  const start = typeof options.start_at === 'string' ? Date.parse(options.start_at) : end - hours * 3_600_000;
  const max = typeof options.max_sessions === 'number' ? options.max_sessions : 100_000;
  return { start: chTime(start), end: chTime(end), max_sessions: max };
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'skill';
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function createSkillsService(kv: JsonKv, store: Store, now: () => number): SkillsService {
  const iso = () => new Date(now()).toISOString();
  const all = async <T>(filter: string) => {
    const out: T[] = [];
    for (const k of await kv.keys(filter)) {
      const v = await kv.get<T>(k);
      if (v) out.push(v);
    }
    return out;
  };
  const svc: SkillsService = {
    async gen(tenant, options) {
      const started = iso();
      const runId = randomUUID();
      const warnings: string[] = [];
      let clusteringRunId = typeof options.clustering_run_id === 'string' ? options.clustering_run_id : null;
      if (!clusteringRunId) clusteringRunId = (await store.query<{ run_id: string }>(namedQuery('fix-latest-cluster-run'), { tenant }))[0]?.run_id ?? null;
      let proposals = 0;
      if (!clusteringRunId) warnings.push('no completed use-case clustering run: run the taxonomy first, then generate skills');
      else {
        const maxPct = typeof options.max_cluster_pct === 'number' ? options.max_cluster_pct : undefined;
        const clusters = await store.query<{ node_id: string; label: string; summary: string; keywords: string[]; conversations: string | number; successful: string | number; sample: string[] }>(
          namedQuery('fix-skills-clusters'),
          { tenant, run: clusteringRunId, limit: 50, ...window(options, now()) },
        );
        const total = clusters.reduce((a, c) => a + Number(c.conversations), 0);
        for (const c of clusters) {
          if (maxPct !== undefined && total > 0 && (Number(c.conversations) / total) * 100 > maxPct) {
            warnings.push(`cluster ${c.label} skipped: ${Math.round((Number(c.conversations) / total) * 100)}% of conversations is above max_cluster_pct`);
            continue;
          }
          const tools = await store.query<{ tool_name: string; conversations: string | number }>(namedQuery('fix-skills-tools'), { tenant, ids: c.sample });
          const name = oneLine(c.label) || `use case ${c.node_id}`;
          const key = slug(name);
          const description = oneLine(c.summary) || `How successful conversations handled "${name}".`;
          const md = [
            '---',
            `name: ${key}`,
            `description: ${description.replace(/\n/g, ' ').slice(0, 300)}`,
            '---',
            '',
            `# ${name}`,
            '',
            '## When to use',
            `Requests like: ${(c.keywords ?? []).slice(0, 8).join(', ') || name}.`,
            '',
            '## What worked',
            `${Number(c.successful)} of ${Number(c.conversations)} conversations of this use case ended without frustration, laziness or contradicted claims.`,
            ...(tools.length ? ['', '## Tools successful runs used', ...tools.map((t) => `- \`${t.tool_name}\` (${Number(t.conversations)} conversation(s))`)] : []),
            '',
          ].join('\n');
          const p: SkillProposal = {
            proposal_id: randomUUID(),
            generation_run_id: runId,
            key,
            name,
            description,
            skill_md: md,
            content_hash: sha256(md),
            cluster_id: c.node_id,
            evidence: { conversations: Number(c.conversations), successful: Number(c.successful), sample_conversation_ids: c.sample.slice(0, 10) },
            status: 'ready_for_pr',
            applied_by: null,
            applied_at: null,
            created_at: iso(),
          };
          await kv.put(`skprop.${tenant}.${p.proposal_id}`, p);
          proposals++;
        }
      }
      const run: SkillsRun = { run_id: runId, status: 'completed', clustering_run_id: clusteringRunId, proposals, warnings, options, started_at: started, completed_at: iso() };
      await kv.put(`skrun.${tenant}.${runId}`, run);
      await kv.put(`sklast.${tenant}`, { runId });
      return run;
    },
    async run(tenant, runId) {
      const id = runId ?? (await kv.get<{ runId: string }>(`sklast.${tenant}`))?.runId;
      if (!id || !/^[A-Za-z0-9-]{1,64}$/.test(id)) return undefined;
      return kv.get<SkillsRun>(`skrun.${tenant}.${id}`);
    },
    async list(tenant, status) {
      const out: Array<Record<string, unknown>> = [];
      if (status !== 'proposed') {
        for (const s of await all<SkillEntry>(`skill.${tenant}.*`)) {
          out.push({ key: s.key, name: s.name, description: s.description, source_path: s.sourcePath, content_hash: s.contentHash, status: 'approved', skill_md: s.skillMd, updated_at: s.updatedAt });
        }
      }
      if (status !== 'approved') {
        for (const p of await all<SkillProposal>(`skprop.${tenant}.*`)) {
          if (p.status !== 'ready_for_pr') continue;
          out.push({ key: p.key, name: p.name, description: p.description, content_hash: p.content_hash, status: 'proposed', proposal_id: p.proposal_id, skill_md: p.skill_md, updated_at: p.created_at });
        }
      }
      return out.sort((a, b) => String(a.key).localeCompare(String(b.key)));
    },
    async push(tenant, skills, { dryRun, sourceCommit }) {
      const result: Array<{ key: string; content_hash: string; action: 'created' | 'updated' | 'unchanged' }> = [];
      for (const s of skills) {
        const hash = s.contentHash ?? sha256(s.skillMd);
        const k = `skill.${tenant}.${tok(s.key)}`;
        const cur = await kv.get<SkillEntry>(k);
        const action = !cur ? 'created' : cur.contentHash === hash ? 'unchanged' : 'updated';
        result.push({ key: s.key, content_hash: hash, action });
        if (dryRun || action === 'unchanged') continue;
        await kv.put(k, {
          key: s.key,
          name: s.name,
          skillMd: s.skillMd,
          description: s.description ?? '',
          sourcePath: s.sourcePath ?? '',
          contentHash: hash,
          sourceCommit: s.sourceCommit ?? sourceCommit ?? '',
          status: 'approved',
          updatedAt: iso(),
        } satisfies SkillEntry);
      }
      return { dry_run: dryRun, skills: result };
    },
    async proposals(tenant, status, generationRunId) {
      return (await all<SkillProposal>(`skprop.${tenant}.*`))
        .filter((p) => status === 'all' || p.status === status)
        .filter((p) => !generationRunId || p.generation_run_id === generationRunId)
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.key.localeCompare(b.key));
    },
    async proposal(tenant, id) {
      const p = /^[A-Za-z0-9-]{1,64}$/.test(id) ? await kv.get<SkillProposal>(`skprop.${tenant}.${id}`) : undefined;
      if (!p) throw new NotFoundError(`no skill proposal ${id}`);
      return p;
    },
    async markApplied(tenant, id, appliedBy) {
      await svc.proposal(tenant, id);
      return (await kv.update<SkillProposal>(`skprop.${tenant}.${id}`, (c) => (c && c.status !== 'applied' ? { ...c, status: 'applied', applied_by: appliedBy, applied_at: iso() } : undefined)))!;
    },
  };
  return svc;
}
