/**
 * The 27 tools of spec/fix-pipeline.md "Tool interface", registered on an McpServer. A thin
 * adapter: every tool calls the same functions as the HTTP routes (fixes/), never a second
 * implementation. Arguments are snake_case with the spec's bounds and defaults (published through
 * tools/list); results are `{data, warnings}` as JSON text plus structured content.
 * Tenant: the one embedded in the signed API key; `tenant_id` only for legacy unsigned keys.
 * Reads need membership, writing tools the admin role. Writing tools are executed once per call.
 */
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, BadRequestError, ForbiddenError, NotFoundError } from '../core/errors.js';
import type { KeyStore, Principal } from '../core/keys.js';
import type { Logger } from '../core/log.js';
import type { CursorCodec } from '../query/pagination.js';
import type { FixServices } from '../fixes/services.js';
import { MAX_GRAPH_BYTES } from '../fixes/harness.js';
import { PROMPT_LABELS, sha256, type PromptEntryInput } from '../fixes/prompts.js';
import type { ReplayCase } from '../fixes/replay-protocol.js';
import type { RunStatus } from '../fixes/replay.js';
import { FIX_STATUSES, type Fix, type FixStatus } from '../fixes/types.js';
import { CANDIDATE_MAX_CHARS, CANDIDATE_MIN_CHARS, DRAFT_ROUTES, FIX_QUEUE_DEFAULT_LIMIT, FIX_QUEUE_MAX_LIMIT, SUBMIT_CHANNELS } from '../schemas/api/fix-values.js';
import { MCP_ACTOR } from '../fixes/pipeline.js';

export interface ToolContext {
  keys: KeyStore;
  apiKey: string;
  services: FixServices;
  cursors: CursorCodec;
  now: () => number;
  /** Resolves after `ms` (injectable so waits stay testable). */
  sleep?: (ms: number) => Promise<void>;
  /** Reads conversations for replay sets built from conversation ids or auto-generation. */
  conversations: ConversationSource;
  /** Unexpected (5xx) tool failures are logged here once. */
  log?: Logger;
}

export interface ConversationSource {
  firstUserMessages(tenant: string, ids: string[]): Promise<Map<string, string>>;
  recent(tenant: string, limit: number, lookbackDays: number): Promise<string[]>;
}

export const WRITING_TOOLS = [
  'prompts_sync',
  'prompts_promote',
  'prompts_ab',
  'prompts_propose',
  'skills_gen',
  'skills_push',
  'skills_proposal_mark_applied',
  'harness_sync',
  'harness_delete',
  'fixes_draft_batch',
  'fixes_drive',
  'fix_start',
  'fix_verify',
  'fix_checkout',
  'fix_submit',
  'fix_mark_applied',
  'fix_dismiss',
] as const;

const DRIVEABLE: readonly FixStatus[] = ['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING'];

const tenantId = z.string().min(1).max(64).optional().describe('Tenant; only needed with a legacy unsigned API key (a signed key carries its tenant).');
const waitSeconds = (def: number) => z.number().int().min(10).max(600).default(def);
const pollSeconds = (def: number) => z.number().int().min(2).max(60).default(def);
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

function ok(data: unknown, warnings: string[] = [], isError = false): CallToolResult {
  const payload = { data, warnings };
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload as Record<string, unknown>, ...(isError ? { isError: true } : {}) };
}

function fail(err: unknown): CallToolResult {
  const e = err instanceof AppError ? err : undefined;
  const error = e ? { status: e.status, code: e.code, message: e.expose ? e.message : 'internal error' } : { status: 500, code: 'internal', message: 'internal error' };
  const payload = { error };
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload, isError: true };
}

/** The follow-up tool for a fix in a status (spec: `data.next_steps`). */
export function nextSteps(f: Pick<Fix, 'status' | 'fixType'>): Array<{ tool: string; why: string }> {
  switch (f.status) {
    case 'DRAFT':
    case 'SCOPING':
    case 'PROPOSING':
    case 'PROPOSED':
    case 'GATING':
      return [{ tool: 'fix', why: 'call with wait=true (or fixes_drive) to advance the pipeline' }];
    case 'VERIFIED':
      return [
        { tool: 'fix_submit', why: 'deliver as a draft PR (channel pr) or record a local branch (channel local_ref)' },
        { tool: 'fix_checkout', why: 'get the candidate text, branch name and magic word to apply it yourself' },
      ];
    case 'GATE_FAILED':
    case 'GATE_INCONCLUSIVE':
      return [
        { tool: 'fix_verify', why: 're-gate, optionally with your own candidate_content' },
        { tool: 'fix_dismiss', why: 'reject the fix with a reason' },
      ];
    case 'UNROUTED':
    case 'HANDED_OFF':
      return [{ tool: 'fix_packet', why: 'apply the packet in the harness repository, then fix_mark_applied' }];
    case 'PR_OPEN':
    case 'APPLIED_LOCALLY':
      return [{ tool: 'fix_mark_applied', why: 'once the change is live (a merged PR confirms itself through the webhook)' }];
    case 'SHIPPED':
    case 'CONFIRMING':
      return [{ tool: 'fix', why: 'read again later: the fix becomes HELD after 14 clean days or REGRESSED if the problem reopens' }];
    case 'NO_EVIDENCE':
    case 'BLOCKED_COVERAGE':
    case 'NO_HEADROOM':
    case 'REGRESSED':
      return [{ tool: 'fix_start', why: 'draft a new attempt once the problem has more evidence or the harness changed' }];
    default:
      return [];
  }
}

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
    results: { expected: s.expected, received: s.received },
    baseline: { passes: b, rate: live.length ? b / live.length : null },
    candidate: { passes: c, rate: live.length ? c / live.length : null },
    cases: s.cases.map((x) => ({ case_id: x.caseId, baseline: x.baseline, candidate: x.candidate, abstained: x.abstained })),
    verdict: !done ? null : c > b ? 'candidate' : b > c ? 'baseline' : 'tie',
  };
}

export function registerTools(server: McpServer, ctx: ToolContext): void {
  const { services } = ctx;
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  const principalFor = async (tenant: string | undefined, write: boolean): Promise<Principal> => {
    const p = await ctx.keys.authenticate(ctx.apiKey, { tenant, requireTenantForLegacy: true });
    if (write && p.role !== 'admin') throw new ForbiddenError('this tool writes and needs an admin API key');
    return p;
  };
  const actor = (p: Principal) => `${MCP_ACTOR}:${p.keyId}`;

  type Shape = Record<string, z.ZodType>;
  const tool = <S extends Shape>(
    name: string,
    opts: { title: string; description: string; write: boolean; destructive?: boolean; idempotent?: boolean },
    shape: S,
    run: (args: z.infer<z.ZodObject<S>>, p: Principal) => Promise<CallToolResult>,
  ) => {
    server.registerTool(
      name,
      {
        title: opts.title,
        description: opts.description,
        inputSchema: shape,
        annotations: { title: opts.title, readOnlyHint: !(opts.write || name === 'fix'), destructiveHint: opts.write ? (opts.destructive ?? false) : false, idempotentHint: opts.idempotent ?? !opts.write, openWorldHint: false },
      },
      (async (args: z.infer<z.ZodObject<S>>) => {
        try {
          const a = args as { tenant_id?: string; wait?: boolean };
          const writes = opts.write || (name === 'fix' && a.wait === true);
          return await run(args, await principalFor(a.tenant_id, writes));
        } catch (err) {
          if (!(err instanceof AppError) || err.status >= 500) ctx.log?.error({ err, tool: name }, 'tool failed');
          return fail(err);
        }
      }) as never,
    );
  };

  /** Advances until the fix leaves the driveable statuses or the wait ends. */
  const driveOne = async (tenant: string, fixId: string, who: Principal, maxWaitS: number, pollS: number) => {
    const until = ctx.now() + maxWaitS * 1000;
    let f = await services.pipeline.get(tenant, fixId);
    const warnings: string[] = [];
    while (DRIVEABLE.includes(f.status)) {
      const before = `${f.status}|${f.updatedAt}`;
      f = await services.pipeline.advance(tenant, fixId, actor(who));
      if (!DRIVEABLE.includes(f.status)) break;
      if (ctx.now() + pollS * 1000 > until) {
        warnings.push(`still ${f.status} after ${maxWaitS}s: call fix again with wait=true or poll fixes_drive`);
        break;
      }
      if (`${f.status}|${f.updatedAt}` === before || f.status === 'GATING') await sleep(pollS * 1000);
    }
    return { fix: f, warnings };
  };

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

  const waitRun = async (tenant: string, runId: string, maxWaitS: number, pollS: number) => {
    const until = ctx.now() + maxWaitS * 1000;
    for (;;) {
      const s = await services.replay.status(tenant, runId);
      if (s.status === 'completed' || s.status === 'skipped' || ctx.now() + pollS * 1000 > until) return s;
      await sleep(pollS * 1000);
    }
  };

  // ---- prompt registry -----------------------------------------------------------------------

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
      const run = await services.replay.startRun(p.tenant, {
        setId: set.setId,
        kind: 'ab',
        caseIds: set.cases.map((c) => c.case_id),
        seeds: a.seeds_per_case,
        assistantModel: a.assistant_model ?? '',
        arms: { baseline: { content: a.baseline_content, versionId: a.baseline_version_id ?? '' }, candidate: { content: a.candidate_content, versionId: a.candidate_version_id ?? '' } },
      });
      if (!a.wait) return ok({ replaySetId: set.setId, runId: run.runId });
      const s = runSummary(await waitRun(p.tenant, run.runId, a.max_wait_seconds, a.poll_interval_seconds));
      const warnings: string[] = [];
      if (s.status !== 'completed') warnings.push(`run still ${s.status} after ${a.max_wait_seconds}s: poll replay_run_status`);
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
        const run = await services.replay.startRun(p.tenant, {
          setId: set.setId,
          kind: 'ab',
          caseIds: set.cases.map((c) => c.case_id),
          seeds: a.seeds_per_case,
          assistantModel: a.assistant_model ?? '',
          arms: { baseline: { content: a.baseline_content!, versionId: rec.labels.prod ?? '' }, candidate: { content: proposal.content, versionId: v.versionId } },
        });
        const s = runSummary(await waitRun(p.tenant, run.runId, a.max_wait_seconds, a.poll_interval_seconds));
        data.gate = s;
        if (s.status !== 'completed') warnings.push(`gate run still ${s.status} after ${a.max_wait_seconds}s: poll replay_run_status`);
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

  // ---- skills --------------------------------------------------------------------------------

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

  // ---- harness -------------------------------------------------------------------------------

  tool(
    'harness_sync',
    { title: 'Upload the harness graph', description: `Uploads the agent harness graph (agents, artifacts, relationships) used to route fixes, and/or an approved analysis report. Graph limit ${MAX_GRAPH_BYTES} bytes, checked before upload.`, write: true },
    {
      graph: z.record(z.string(), z.unknown()).optional(),
      graph_hash: z.string().optional(),
      source_commit: z.string().optional(),
      dry_run: z.boolean().default(false),
      report: z.record(z.string(), z.unknown()).optional(),
      report_hash: z.string().optional(),
      report_validation_status: z.string().optional(),
      report_approval: z.record(z.string(), z.unknown()).optional(),
      tenant_id: tenantId,
    },
    async (a, p) => {
      if (a.graph === undefined && a.report === undefined) throw new BadRequestError('graph is required unless report is given');
      if (a.graph !== undefined && Buffer.byteLength(JSON.stringify(a.graph)) > MAX_GRAPH_BYTES) throw new BadRequestError(`graph exceeds ${MAX_GRAPH_BYTES} bytes`);
      return ok(
        await services.harness.sync(p.tenant, {
          graph: a.graph,
          graphHash: a.graph_hash,
          sourceCommit: a.source_commit,
          dryRun: a.dry_run,
          report: a.report,
          reportHash: a.report_hash,
          reportValidationStatus: a.report_validation_status,
          reportApproval: a.report_approval,
        }),
      );
    },
  );
  tool(
    'harness_delete',
    { title: 'Delete a harness', description: 'Permanently deletes all versions, agents, artifacts and relationships of a harness; returns deleted counts. confirm must be true.', write: true, destructive: true, idempotent: true },
    { id_or_key: z.string().min(1), confirm: z.boolean(), tenant_id: tenantId },
    async (a, p) => {
      if (a.confirm !== true) throw new BadRequestError('confirm must be true to delete a harness');
      const r = await services.harness.delete(p.tenant, a.id_or_key);
      if (!r.deleted) throw new NotFoundError(`no harness ${a.id_or_key}`);
      return ok(r);
    },
  );
  tool(
    'harness_analyze_status',
    { title: 'Harness analysis status', description: 'Reads a harness analysis run; progress strings are stripped of control characters.', write: false },
    { run_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => {
      const r = await services.harness.analysisRun(p.tenant, a.run_id);
      if (!r) throw new NotFoundError(`no harness analysis run ${a.run_id}`);
      // eslint-disable-next-line no-control-regex
      return ok({ ...r, progress: r.progress.map((s) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '')) });
    },
  );

  // ---- fixes ---------------------------------------------------------------------------------

  tool(
    'fixes',
    { title: 'Fix queue', description: 'Ranked fix queue page (problem rank descending, then recency).', write: false },
    { status: z.enum(FIX_STATUSES).optional(), limit: z.number().int().min(1).max(FIX_QUEUE_MAX_LIMIT).default(FIX_QUEUE_DEFAULT_LIMIT), cursor: z.string().optional(), tenant_id: tenantId },
    async (a, p) => {
      const scope = `mcp-fixes:${p.tenant}:${a.status ?? ''}`;
      const offset = a.cursor ? ctx.cursors.decode<{ o: number }>(scope, a.cursor).o : 0;
      const page = await services.pipeline.queue(p.tenant, { status: a.status, limit: a.limit, offset });
      return ok({ fixes: page.fixes, pagination: { limit: a.limit, has_more: page.hasMore, next_cursor: page.hasMore ? ctx.cursors.encode(scope, { o: offset + a.limit }) : null } });
    },
  );
  tool(
    'fixes_draft_batch',
    { title: 'Draft fixes for the top problems', description: 'Scans up to 100 ranked problems and drafts a fix for each without an active one; returns drafted fixes and per-problem skip reasons.', write: true },
    { limit: z.number().int().min(1).max(25).optional(), tenant_id: tenantId },
    async (a, p) => {
      const r = await services.pipeline.draftBatch(p.tenant, a.limit ?? 10, actor(p));
      return ok({ drafted: r.drafted, skipped: r.skipped, scanned: r.scanned });
    },
  );
  tool(
    'fixes_drive',
    { title: 'Drive active fixes', description: 'One advance per active fix per pass (DRAFT, SCOPING, PROPOSING, PROPOSED, GATING, or only the given status); reports stragglers, coverage_truncated and warnings.', write: true },
    {
      status: z.enum(['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING']).optional(),
      max_passes: z.number().int().min(1).max(10).default(3),
      pass_interval_seconds: z.number().int().min(0).max(30).default(5),
      tenant_id: tenantId,
    },
    async (a, p) => {
      const warnings: string[] = [];
      const wanted = a.status ? [a.status] : DRIVEABLE;
      let coverageTruncated = false;
      const advanced: Record<string, FixStatus> = {};
      let passes = 0;
      for (let pass = 0; pass < a.max_passes; pass++) {
        const active = (await services.pipeline.queue(p.tenant, { limit: 1000, offset: 0 })).fixes.filter((f) => wanted.includes(f.status));
        if (!active.length) break;
        if (active.length > 100) coverageTruncated = true;
        passes++;
        for (const f of active.slice(0, 100)) {
          try {
            advanced[f.id] = (await services.pipeline.advance(p.tenant, f.id, actor(p))).status;
          } catch (err) {
            warnings.push(`${f.shortRef}: ${err instanceof AppError && err.expose ? err.message : 'advance failed'}`);
          }
        }
        if (pass + 1 < a.max_passes && a.pass_interval_seconds > 0) await sleep(a.pass_interval_seconds * 1000);
      }
      const after = (await services.pipeline.queue(p.tenant, { limit: 1000, offset: 0 })).fixes;
      const stragglers = after.filter((f) => wanted.includes(f.status)).map((f) => ({ fix_id: f.id, short_ref: f.shortRef, status: f.status, status_reason: f.statusReason }));
      const touched = after.filter((f) => f.id in advanced).map((f) => ({ fix_id: f.id, short_ref: f.shortRef, status: f.status }));
      return ok({ passes, fixes: touched, stragglers, coverage_truncated: coverageTruncated }, warnings);
    },
  );
  tool(
    'fix',
    { title: 'Read a fix', description: 'One fix with its gate result and data.next_steps. wait=true drives advance calls until the fix settles (this writes).', write: false },
    { fix_id: z.string().min(1), wait: z.boolean().default(false), max_wait_seconds: waitSeconds(120), poll_interval_seconds: pollSeconds(5), tenant_id: tenantId },
    async (a, p) => {
      if (!a.wait) {
        const f = await services.pipeline.get(p.tenant, a.fix_id);
        return ok({ fix: f, next_steps: nextSteps(f) });
      }
      const r = await driveOne(p.tenant, a.fix_id, p, a.max_wait_seconds, a.poll_interval_seconds);
      return ok({ fix: r.fix, next_steps: nextSteps(r.fix) }, r.warnings);
    },
  );
  tool(
    'fix_start',
    { title: 'Start a fix', description: 'Drafts a fix for a problem (an active fix is returned instead); wait=true drives it.', write: true },
    { problem_id: z.string().min(1), type: z.enum(DRAFT_ROUTES).default('auto'), wait: z.boolean().default(false), max_wait_seconds: waitSeconds(120), poll_interval_seconds: pollSeconds(5), tenant_id: tenantId },
    async (a, p) => {
      const f = await services.pipeline.draft(p.tenant, a.problem_id, { fixType: a.type }, actor(p));
      if (!a.wait) return ok({ fix: f, next_steps: nextSteps(f) });
      const r = await driveOne(p.tenant, f.id, p, a.max_wait_seconds, a.poll_interval_seconds);
      return ok({ fix: r.fix, next_steps: nextSteps(r.fix) }, r.warnings);
    },
  );
  tool(
    'fix_packet',
    { title: 'Fix packet', description: 'The fix packet verbatim (snake_case; untrusted evidence marked). Writes no files.', write: false },
    { fix_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => ok(await services.pipeline.packet(p.tenant, a.fix_id)),
  );
  tool(
    'fix_verify',
    {
      title: 'Verify a fix on the replay gate',
      description: 'Re-gates the fix (optionally with your own candidate_content, gated by hash only). VERIFIED with a pass verdict is success; GATE_FAILED is an error with per-case findings; anything else is degraded.',
      write: true,
    },
    {
      fix_id: z.string().min(1),
      candidate_content: z
        .string()
        .min(CANDIDATE_MIN_CHARS)
        .max(CANDIDATE_MAX_CHARS)
        .refine((s) => s.trim().length >= CANDIDATE_MIN_CHARS, { message: `candidate_content must be at least ${CANDIDATE_MIN_CHARS} characters after trimming` })
        .optional(),
      wait: z.boolean().default(true),
      max_wait_seconds: waitSeconds(120),
      poll_interval_seconds: pollSeconds(5),
      tenant_id: tenantId,
    },
    async (a, p) => {
      const v = await services.pipeline.verify(p.tenant, a.fix_id, a.candidate_content !== undefined ? { candidateContent: a.candidate_content } : {}, actor(p));
      if (!a.wait) return ok({ gateRunId: v.gateRunId, fix: v.fix, next_steps: [{ tool: 'fix', why: 'call with wait=true to collect the verdict' }] });
      const r = await driveOne(p.tenant, v.fix.id, p, a.max_wait_seconds, a.poll_interval_seconds);
      const f = r.fix;
      if (f.status === 'VERIFIED' && f.gateResult?.verdict === 'pass') return ok({ gateRunId: v.gateRunId, fix: f, next_steps: nextSteps(f) }, r.warnings);
      if (f.status === 'GATE_FAILED') {
        const runs = await services.pipeline.gateRuns(p.tenant, f.id);
        const holdout = new Set(f.holdoutCaseIds);
        const findings = (runs.gate?.cases ?? []).filter((c) => holdout.has(c.caseId)).map((c) => ({ case_id: c.caseId, baseline: c.baseline, candidate: c.candidate, abstained: c.abstained, outcome: c.abstained ? 'abstained' : (c.candidate ?? 0) > (c.baseline ?? 0) ? 'win' : (c.candidate ?? 0) < (c.baseline ?? 0) ? 'loss' : 'tie' }));
        return ok({ gateRunId: v.gateRunId, fix: f, findings, next_steps: nextSteps(f) }, [`gate failed: ${f.gateResult?.reason ?? ''}`], true);
      }
      return ok({ gateRunId: v.gateRunId, fix: f, degraded: true, next_steps: nextSteps(f) }, [...r.warnings, `degraded: fix is ${f.status}${f.gateResult ? ` (verdict ${f.gateResult.verdict})` : ''}`]);
    },
  );
  tool(
    'fix_checkout',
    { title: 'Check out a fix candidate', description: 'Target path, full candidate text, branch name svc/fix/<shortref>, magic word and candidate version id, to apply the candidate yourself. Refuses TOOL_SCHEMA and SKILL fixes and fixes without a candidate.', write: true, idempotent: true },
    { fix_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => {
      const c = await services.pipeline.checkout(p.tenant, a.fix_id);
      return ok({ fix_id: c.fix.id, target_path: c.targetPath, candidate_text: c.candidateText, branch: c.branch, magic_word: c.magicWord, candidate_version_id: c.candidateVersionId });
    },
  );
  tool(
    'fix_submit',
    { title: 'Deliver a verified fix', description: 'channel pr opens a draft PR on svc/fix/<shortref>; channel local_ref records your branch (local_ref required with it, forbidden with pr). Sent once, never retried.', write: true },
    { fix_id: z.string().min(1), channel: z.enum(SUBMIT_CHANNELS), local_ref: z.string().min(1).max(255).optional(), tenant_id: tenantId },
    async (a, p) => {
      if (a.channel === 'local_ref' && !a.local_ref) throw new BadRequestError('local_ref is required with channel local_ref');
      if (a.channel === 'pr' && a.local_ref !== undefined) throw new BadRequestError('local_ref is not allowed with channel pr');
      const f = await services.pipeline.submit(p.tenant, a.fix_id, { channel: a.channel, ...(a.local_ref ? { localRef: a.local_ref } : {}) }, actor(p));
      return ok({ status: f.status, prUrl: f.prUrl, prBranch: f.prBranch, fix: f, next_steps: nextSteps(f) });
    },
  );
  tool(
    'fix_mark_applied',
    { title: 'Mark a fix applied', description: 'Records that the fix is live: SHIPPED plus mark_fixed problem feedback (the problem enters fixed-monitoring at the next problems run). Repeating on a confirmed fix is a no-op with a warning.', write: true },
    { fix_id: z.string().min(1), note: z.string().max(600).optional(), tenant_id: tenantId },
    async (a, p) => {
      const r = await services.pipeline.markApplied(p.tenant, a.fix_id, a.note, actor(p));
      return ok({ fix: r.fix, feedback_id: r.feedbackId, duplicate: r.duplicate, next_steps: nextSteps(r.fix) }, r.warning ? [r.warning] : []);
    },
  );
  tool(
    'fix_dismiss',
    { title: 'Dismiss a fix', description: 'Rejects the fix; the reason is recorded as dismiss feedback on the problem (the next problems run dismisses the problem). To try another candidate, use fix_verify with candidate_content instead.', write: true },
    { fix_id: z.string().min(1), reason: z.string().trim().min(1).max(2000), tenant_id: tenantId },
    async (a, p) => {
      const f = await services.pipeline.dismiss(p.tenant, a.fix_id, a.reason, actor(p));
      return ok({ fix: f, next_steps: nextSteps(f) });
    },
  );
}
