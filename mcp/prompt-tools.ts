/**
 * The prompt registry tools (spec/fix-pipeline.md "Tool interface"): sync, diff, promote, A/B
 * replay of two prompts, proposal of a revision from a run's failing cases, and a replay run's
 * status. Replay sets come from a set id, conversation ids or auto-generation.
 */
import { z } from 'zod';
import { BadRequestError, NotFoundError } from '../core/errors.js';
import { PROMPT_LABELS, sha256, type PromptEntryInput } from '../fixes/prompts.js';
import type { ReplayCase } from '../fixes/replay-protocol.js';
import { runEnded, type ReplayRun, type RunStatus } from '../fixes/replay.js';
import { ok, pollSeconds, tenantId, waitSeconds, type ToolContext, type ToolKit } from './tool-kit.js';

const promptEntry = z.object({
  key: z.string().min(1),
  content: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  category: z.string().optional(),
  system_prompt: z.string().optional(),
  messages: z.array(z.unknown()).optional(),
  variables: z.array(z.unknown()).optional(),
  variables_schema: z.record(z.string(), z.unknown()).optional(),
  model_config: z.record(z.string(), z.unknown()).optional(),
  tool_refs: z.array(z.unknown()).optional(),
  response_schema: z.record(z.string(), z.unknown()).optional(),
  source_path: z.string().optional(),
});
type PromptEntryArg = z.infer<typeof promptEntry>;

const toWire = (e: PromptEntryArg): PromptEntryInput => ({
  key: e.key,
  content: e.content,
  ...(e.name !== undefined ? { name: e.name } : {}),
  ...(e.description !== undefined ? { description: e.description } : {}),
  ...(e.category !== undefined ? { category: e.category } : {}),
  ...(e.system_prompt !== undefined ? { systemPrompt: e.system_prompt } : {}),
  ...(e.messages !== undefined ? { messages: e.messages } : {}),
  ...(e.variables !== undefined ? { variables: e.variables } : {}),
  ...(e.variables_schema !== undefined ? { variablesSchema: e.variables_schema } : {}),
  ...(e.model_config !== undefined ? { modelConfig: e.model_config } : {}),
  ...(e.tool_refs !== undefined ? { toolRefs: e.tool_refs } : {}),
  ...(e.response_schema !== undefined ? { responseSchema: e.response_schema } : {}),
  ...(e.source_path !== undefined ? { sourcePath: e.source_path } : {}),
});

function runSummary(s: RunStatus) {
  const live = s.cases.filter((c) => !c.abstained);
  const passes = (arm: 'baseline' | 'candidate') => live.reduce((a, c) => a + ((c[arm] ?? 0) >= 0.5 ? 1 : 0), 0);
  const b = passes('baseline');
  const c = passes('candidate');
  const done = s.status === 'completed';
  return {
    run_id: s.runId,
    set_id: s.setId,
    status: s.status,
    ...(s.error ? { error: s.error } : {}),
    results: { expected: s.expected, received: s.received },
    baseline: { passes: b, rate: live.length ? b / live.length : null },
    candidate: { passes: c, rate: live.length ? c / live.length : null },
    cases: s.cases.map((x) => ({ case_id: x.caseId, baseline: x.baseline, candidate: x.candidate, abstained: x.abstained })),
    verdict: !done ? null : c > b ? 'candidate' : b > c ? 'baseline' : 'tie',
  };
}

export function registerPromptTools({ tool, sleep }: ToolKit, ctx: ToolContext): void {
  const { services } = ctx;

  const buildSet = async (tenant: string, a: { set_id?: string; conversation_ids?: string[]; auto_generate?: { case_count: number; lookback_days: number; name?: string } }) => {
    const given = [a.set_id !== undefined, a.conversation_ids !== undefined, a.auto_generate !== undefined].filter(Boolean).length;
    if (given > 1) throw new BadRequestError('give at most one of set_id, conversation_ids, auto_generate');
    if (a.set_id) {
      const s = await services.replay.getSet(tenant, a.set_id);
      if (!s) throw new NotFoundError(`no replay set ${a.set_id}`);
      return s;
    }
    let ids: string[];
    let name: string;
    let source: 'conversations' | 'auto';
    if (a.conversation_ids) {
      ids = [...new Set(a.conversation_ids)];
      name = `Prompt A/B ${new Date(ctx.now()).toISOString().slice(0, 10)}`;
      source = 'conversations';
    } else {
      const g = a.auto_generate ?? { case_count: 5, lookback_days: 30 };
      ids = await ctx.conversations.recent(tenant, g.case_count, g.lookback_days);
      name = g.name ?? `Prompt A/B ${new Date(ctx.now()).toISOString().slice(0, 10)}`;
      source = 'auto';
    }
    if (!ids.length) throw new BadRequestError('no conversations to build a replay set from');
    const scen = await ctx.conversations.firstUserMessages(tenant, ids);
    const cases: ReplayCase[] = ids.map((id, i) => ({ case_id: `c${String(i + 1).padStart(3, '0')}`, conversation_id: id, msg_index: 0, scenario: scen.get(id) ?? '', checks: [] }));
    return services.replay.createSet(tenant, { name, cases, source });
  };

  /** An A/B replay of the set's cases: baseline against candidate, `seeds_per_case` seeds each. */
  const startAbRun = (
    tenant: string,
    set: { setId: string; cases: ReadonlyArray<{ case_id: string }> },
    a: { seeds_per_case: number; assistant_model?: string },
    arms: ReplayRun['arms'],
  ) =>
    services.replay.startRun(tenant, { setId: set.setId, kind: 'ab', caseIds: set.cases.map((c) => c.case_id), seeds: a.seeds_per_case, assistantModel: a.assistant_model ?? '', arms });

  const waitRun = async (tenant: string, runId: string, maxWaitS: number, pollS: number) => {
    const until = ctx.now() + maxWaitS * 1000;
    for (;;) {
      const s = await services.replay.status(tenant, runId);
      if (runEnded(s.status) || ctx.now() + pollS * 1000 > until) return s;
      await sleep(pollS * 1000);
    }
  };

  tool(
    'prompts_sync',
    { title: 'Sync prompts', description: 'Registers the complete set of prompts (absent keys are removed from the live set); a changed content becomes a new version. Returns each prompt with its content hash. dry_run reports without writing.', write: true },
    { prompts: z.array(promptEntry).min(1), dry_run: z.boolean().default(false), source_commit: z.string().optional(), tenant_id: tenantId },
    async (a, p) => ok(await services.prompts.sync(p.tenant, a.prompts.map(toWire), { dryRun: a.dry_run, ...(a.source_commit !== undefined ? { sourceCommit: a.source_commit } : {}) })),
  );
  tool(
    'prompts_diff',
    { title: 'Diff prompts', description: 'What prompts_sync would change for this set (sync with dry run forced); never writes.', write: false },
    { prompts: z.array(promptEntry).min(1), source_commit: z.string().optional(), tenant_id: tenantId },
    async (a, p) => ok(await services.prompts.sync(p.tenant, a.prompts.map(toWire), { dryRun: true, ...(a.source_commit !== undefined ? { sourceCommit: a.source_commit } : {}) })),
  );
  tool(
    'prompts_promote',
    { title: 'Promote a prompt version', description: 'Points a label (dev, staging, prod) at a version, overwriting it. A prod promotion redirects live traffic at once.', write: true, idempotent: true },
    { prompt_key: z.string().min(1), label: z.enum(PROMPT_LABELS), version_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => {
      const r = await services.prompts.promote(p.tenant, a.prompt_key, a.label, a.version_id);
      return ok({ prompt_key: r.key, prompt_id: r.promptId, labels: r.labels }, a.label === 'prod' ? ['prod now serves this version to live traffic'] : []);
    },
  );
  tool(
    'prompts_ab',
    {
      title: 'A/B replay of two prompts',
      description: 'Replays a set of cases with a baseline and a candidate prompt through the replay workers. Replay set from set_id, conversation_ids (one case per trace; scenario = first user message) or auto_generate (default). wait=false returns {replaySetId, runId}.',
      write: true,
    },
    {
      baseline_content: z.string(),
      candidate_content: z.string(),
      baseline_version_id: z.string().optional(),
      baseline_prompt_id: z.string().optional(),
      candidate_version_id: z.string().optional(),
      candidate_prompt_id: z.string().optional(),
      set_id: z.string().optional(),
      conversation_ids: z.array(z.string().min(1)).min(1).optional(),
      auto_generate: z
        .object({ case_count: z.number().int().min(1).max(500).default(5), lookback_days: z.number().int().min(1).max(365).default(30), name: z.string().optional() })
        .optional(),
      seeds_per_case: z.number().int().min(1).max(10).default(3),
      assistant_model: z.string().optional(),
      promote_primary: z.boolean().default(false),
      wait: z.boolean().default(false),
      max_wait_seconds: waitSeconds(300),
      poll_interval_seconds: pollSeconds(10),
      tenant_id: tenantId,
    },
    async (a, p) => {
      await services.replay.requireWorker();
      const set = await buildSet(p.tenant, a);
      const run = await startAbRun(p.tenant, set, a, {
        baseline: { content: a.baseline_content, versionId: a.baseline_version_id ?? '' },
        candidate: { content: a.candidate_content, versionId: a.candidate_version_id ?? '' },
      });
      // promote_primary without the candidate's prompt and version ids cannot promote anything: say so
      const canPromote = !!(a.candidate_prompt_id && a.candidate_version_id);
      const warnings: string[] = a.promote_primary && !canPromote ? ['promote_primary needs candidate_prompt_id and candidate_version_id: nothing will be promoted'] : [];
      // the promotion follows the verdict, which only a waiting call sees
      if (a.promote_primary && canPromote && !a.wait) warnings.push('promote_primary applies only with wait=true: once the run ends, promote a winning candidate with prompts_promote');
      if (!a.wait) return ok({ replaySetId: set.setId, runId: run.runId }, warnings);
      const s = runSummary(await waitRun(p.tenant, run.runId, a.max_wait_seconds, a.poll_interval_seconds));
      if (!runEnded(s.status)) warnings.push(`run still ${s.status} after ${a.max_wait_seconds}s: poll replay_run_status`);
      else if (s.error) warnings.push(`run ended in error: ${s.error}`);
      if (a.promote_primary && s.verdict === 'candidate' && a.candidate_prompt_id && a.candidate_version_id) {
        const rec = await services.prompts.getById(p.tenant, a.candidate_prompt_id);
        if (rec) await services.prompts.promote(p.tenant, rec.key, 'prod', a.candidate_version_id);
        else warnings.push('promote_primary: unknown candidate_prompt_id');
      }
      return ok({ replaySetId: set.setId, runId: run.runId, ...s }, warnings);
    },
  );
  tool(
    'prompts_propose',
    {
      title: 'Propose a prompt revision',
      description:
        'Proposes a revision of a registered prompt from the failing cases of a replay run (dossiers), registers it as a new unlabeled version and returns content, versionId, contentHash, changelog, risks and the repair/holdout case ids. gate=true replays the full set (no holdout isolation); promote_on_win promotes to prod only on a strict candidate win of a completed run.',
      write: true,
    },
    {
      prompt_key: z.string().min(1),
      from_run_id: z.string().min(1),
      set_id: z.string().min(1),
      max_dossiers: z.number().int().min(1).max(16).default(8),
      model: z.string().optional(),
      gate: z.boolean().default(false),
      promote_on_win: z.boolean().default(false),
      baseline_content: z.string().optional(),
      seeds_per_case: z.number().int().min(1).max(10).default(3),
      assistant_model: z.string().optional(),
      max_wait_seconds: waitSeconds(300),
      poll_interval_seconds: pollSeconds(10),
      tenant_id: tenantId,
    },
    async (a, p) => {
      if (a.promote_on_win && !a.gate) throw new BadRequestError('promote_on_win requires gate=true');
      if (a.gate && !a.baseline_content) throw new BadRequestError('baseline_content is required when gate is true');
      const rec = await services.prompts.get(p.tenant, a.prompt_key);
      if (!rec || rec.removed) throw new NotFoundError(`no prompt "${a.prompt_key}"`);
      const set = await services.replay.getSet(p.tenant, a.set_id);
      if (!set) throw new NotFoundError(`no replay set ${a.set_id}`);
      const status = await services.replay.status(p.tenant, a.from_run_id);
      if (status.setId !== set.setId) throw new BadRequestError(`run ${a.from_run_id} is not a run of set ${a.set_id}`);
      const ordered = [...set.cases].sort((x, y) => sha256(x.conversation_id).localeCompare(sha256(y.conversation_id)));
      const holdout = ordered.filter((_, i) => i % 2 === 1);
      const repair = ordered.filter((_, i) => i % 2 === 0);
      const failing = new Set(status.cases.filter((c) => !c.abstained && (c.candidate ?? 0) < 1).map((c) => c.caseId));
      const dossiers = repair.filter((c) => failing.has(c.case_id)).slice(0, a.max_dossiers);
      const baseline = (rec.labels.prod && (await services.prompts.content(p.tenant, rec.labels.prod))) || (await services.prompts.content(p.tenant, rec.currentVersionId)) || '';
      const terms = [...new Set(dossiers.flatMap((c) => c.checks))];
      const proposal = await services.proposer.propose({
        problem: {
          problemId: '',
          requestedProblemId: '',
          aliasResolved: false,
          lifecycle: 'open',
          fixedAt: null,
          rubricVersion: 1,
          displayName: `${a.prompt_key} replay failures`,
          causeStatement: dossiers.length ? `the agent failed ${dossiers.length} replay case(s) of set ${set.name}${terms.length ? ` involving ${terms.join(', ')}` : ''}` : '',
          rankScore: 0,
          matchCriteria: {},
          counterExamples: [],
          families: [],
        },
        baseline,
        repairCases: dossiers,
        actionHints: [],
        magicWord: a.prompt_key,
        ...(a.model ? { model: a.model } : {}),
      });
      if (!proposal) return ok({ versionId: null, repair_case_ids: repair.map((c) => c.case_id), holdout_case_ids: holdout.map((c) => c.case_id) }, ['no headroom: the proposer had nothing to add']);
      const v = await services.prompts.addVersion(p.tenant, rec.promptId, proposal.content, { source: 'proposer', changelog: proposal.changelog, risks: proposal.risks });
      const data: Record<string, unknown> = {
        content: proposal.content,
        versionId: v.versionId,
        contentHash: v.contentHash,
        changelog: proposal.changelog,
        risks: proposal.risks,
        repair_case_ids: repair.map((c) => c.case_id),
        holdout_case_ids: holdout.map((c) => c.case_id),
      };
      const warnings: string[] = [];
      if (a.gate) {
        await services.replay.requireWorker();
        const run = await startAbRun(p.tenant, set, a, {
          baseline: { content: a.baseline_content!, versionId: rec.labels.prod ?? '' },
          candidate: { content: proposal.content, versionId: v.versionId },
        });
        const s = runSummary(await waitRun(p.tenant, run.runId, a.max_wait_seconds, a.poll_interval_seconds));
        data.gate = s;
        if (!runEnded(s.status)) warnings.push(`gate run still ${s.status} after ${a.max_wait_seconds}s: poll replay_run_status`);
        else if (s.error) warnings.push(`gate run ended in error: ${s.error}`);
        if (a.promote_on_win && s.status === 'completed' && s.verdict === 'candidate') {
          await services.prompts.promote(p.tenant, rec.key, 'prod', v.versionId);
          data.promoted = true;
        } else data.promoted = false;
      }
      return ok(data, warnings);
    },
  );
  tool(
    'replay_run_status',
    { title: 'Replay run status', description: "A replay run's status, per-arm pass counts and rates, per-case results and a verdict by strict pass-count delta. Without run_id, the set's most recent run.", write: false },
    { set_id: z.string().min(1), run_id: z.string().optional(), tenant_id: tenantId },
    async (a, p) => {
      const runId = a.run_id ?? (await services.replay.latestRunId(p.tenant, a.set_id));
      if (!runId) throw new NotFoundError(`replay set ${a.set_id} has no run`);
      const s = await services.replay.status(p.tenant, runId);
      if (s.setId !== a.set_id) throw new NotFoundError(`run ${runId} is not a run of set ${a.set_id}`);
      return ok(runSummary(s));
    },
  );
}
