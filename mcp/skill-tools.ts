/**
 * The skills tools (spec/fix-pipeline.md "Tool interface"): generation runs that mine successful
 * conversations into SKILL.md proposals, the skill registry (list, push) and the proposal queue.
 */
import { z } from 'zod';
import { sha256 } from '../fixes/prompts.js';
import { ok, tenantId, type ToolContext, type ToolKit } from './tool-kit.js';

export function registerSkillTools({ tool }: ToolKit, ctx: ToolContext): void {
  const { services } = ctx;

  tool(
    'skills_gen',
    { title: 'Generate skills', description: 'Starts a tenant-wide run that mines successful conversations of each use-case cluster into SKILL.md proposals; returns a run id (poll skills_status).', write: true },
    {
      max_sessions: z.number().int().min(1).max(100_000).optional(),
      lookback_hours: z.number().int().min(1).max(8760).optional(),
      start_at: z.iso.datetime({ offset: true }).optional(),
      end_at: z.iso.datetime({ offset: true }).optional(),
      clustering_run_id: z.string().optional(),
      replay_set_id: z.string().optional(),
      run_clustering: z.boolean().optional(),
      source: z.enum(['all', 'sdk']).optional(),
      clustering_timeout_seconds: z.number().int().min(1).max(86_400).optional(),
      clustering_poll_seconds: z.number().int().min(1).max(600).optional(),
      max_cluster_pct: z.number().min(0).optional(),
      reprocess_segments: z.boolean().optional(),
      run_replay: z.boolean().optional(),
      max_traces: z.number().int().min(1).max(100_000).optional(),
      improve_candidates: z.boolean().optional(),
      improvement_rounds: z.number().int().min(1).max(10).optional(),
      force_reprocess: z.boolean().optional(),
      wait_for_completion: z.boolean().optional(),
      tenant_id: tenantId,
    },
    async (a, p) => {
      const { tenant_id: _t, ...options } = a;
      const run = await services.skills.gen(p.tenant, options);
      return ok({ run_id: run.run_id, status: run.status, proposals: run.proposals }, run.warnings);
    },
  );
  tool(
    'skills_status',
    { title: 'Skills generation status', description: 'A skills generation run (omit run_id for the latest). An unknown id returns found=false with a warning.', write: false },
    { run_id: z.string().optional(), tenant_id: tenantId },
    async (a, p) => {
      const r = await services.skills.run(p.tenant, a.run_id);
      if (!r) return ok({ found: false }, [a.run_id ? `no skills generation run ${a.run_id}` : 'no skills generation run yet']);
      return ok({ found: true, ...r });
    },
  );
  tool(
    'skills_list',
    { title: 'List skills', description: 'Skills with their full SKILL.md text: approved (default), proposed or all.', write: false },
    { status: z.enum(['approved', 'proposed', 'all']).default('approved'), tenant_id: tenantId },
    async (a, p) => ok({ skills: await services.skills.list(p.tenant, a.status) }),
  );
  tool(
    'skills_push',
    { title: 'Push skills', description: 'Registers SKILL.md documents; unchanged content (same hash) is a no-op.', write: true, idempotent: true },
    {
      skills: z
        .array(
          z.object({
            key: z.string().min(1),
            name: z.string().min(1),
            skill_md: z.string().min(1),
            description: z.string().optional(),
            source_path: z.string().optional(),
            content_hash: z.string().optional(),
            source_commit: z.string().optional(),
          }),
        )
        .min(1),
      dry_run: z.boolean().default(false),
      source_commit: z.string().optional(),
      tenant_id: tenantId,
    },
    async (a, p) =>
      ok(
        await services.skills.push(
          p.tenant,
          a.skills.map((s) => ({
            key: s.key,
            name: s.name,
            skillMd: s.skill_md,
            ...(s.description !== undefined ? { description: s.description } : {}),
            ...(s.source_path !== undefined ? { sourcePath: s.source_path } : {}),
            contentHash: s.content_hash ?? sha256(s.skill_md),
            ...(s.source_commit !== undefined ? { sourceCommit: s.source_commit } : {}),
          })),
          { dryRun: a.dry_run, ...(a.source_commit !== undefined ? { sourceCommit: a.source_commit } : {}) },
        ),
      ),
  );
  tool(
    'skills_proposals',
    { title: 'Skill proposals', description: 'Generated SKILL.md proposals; status ready_for_pr (default) or all.', write: false },
    { status: z.string().min(1).default('ready_for_pr'), generation_run_id: z.string().optional(), tenant_id: tenantId },
    async (a, p) => ok({ proposals: (await services.skills.proposals(p.tenant, a.status, a.generation_run_id)).map(({ skill_md: _m, ...rest }) => rest) }),
  );
  tool(
    'skills_proposal',
    { title: 'Skill proposal', description: 'One proposal with its full SKILL.md content.', write: false },
    { proposal_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => ok(await services.skills.proposal(p.tenant, a.proposal_id)),
  );
  tool(
    'skills_proposal_mark_applied',
    { title: 'Mark a skill proposal applied', description: 'Moves the proposal out of the ready queue (applied by the tool interface). Call only after the content was applied client-side.', write: true, idempotent: true },
    { proposal_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => ok(await services.skills.markApplied(p.tenant, a.proposal_id, `mcp:${p.keyId}`)),
  );
}
