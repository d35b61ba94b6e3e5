/**
 * The fix pipeline (spec/fix-pipeline.md "States and transitions"): drafting, the advance steps
 * (scope → propose → gate), re-gating, delivery, dismissal, merge confirmation and the lazy
 * reconciliation of confirmation state on every read. Nothing progresses between requests.
 *
 * Concurrency: every step that has side effects first claims the fix with a compare-and-set on its
 * KV revision (`claim`); a concurrent caller that loses the claim gets the current row unchanged.
 * A claim left by a crashed process goes stale after `claimStaleMs` and may be taken again.
 */
import { randomUUID } from 'node:crypto';
import { AppError, BadRequestError } from '../core/errors.js';
import { KvConflictError, KvExistsError } from '../core/kv.js';
import type { CodeHost } from './code-host.js';
import {
  FixCandidateInvalidError,
  FixDeliveryInvalidError,
  FixNotFoundError,
  FixStatusConflictError,
  FixThrottledError,
  InvalidProblemIdError,
  ProblemNotFoundError,
  codeHostUnavailable,
} from './errors.js';
import type { EvidenceReader } from './evidence.js';
import { routeProblem, type HarnessArtifact, type HarnessStore } from './harness.js';
import type { JsonKv } from './kv-json.js';
import { buildPacket, type FixPacket } from './packet.js';
import { UUID_PATTERN, type ProblemInfo, type ProblemSource } from './problem-source.js';
import { sha256, type PromptRegistry } from './prompts.js';
import type { Proposer } from './proposer.js';
import type { ReplayCase } from './replay-protocol.js';
import type { ReplayService, RunStatus } from './replay.js';
import { findShortRefs, fixBranch, isShortRef, magicWord, newShortRef } from './short-ref.js';
import type { FixEntry, FixStore } from './store.js';
import { CANDIDATE_MIN_CHARS, type DraftRoute, type MergeOutcome, type SubmitChannel } from '../schemas/api/fix-values.js';
import { ACTIVE_STATUSES, FIX_STATUSES, UNDISMISSABLE, publicFix, type Fix, type FixStatus, type GateResult, type StoredFix } from './types.js';
import { verdictOf } from './verdict.js';

export const MIN_REPLAY_CASES = 4;
export const MAX_REPLAY_CASES = 40;
export const MONITORING_DAYS = 14;
export const MAX_OPEN_PRS = 3;
/** How long a draft waits for a concurrent draft's fix to appear behind the problem's slot. */
const DRAFT_CREATE_WAIT_MS = 3000;
export const GITHUB_APP_ACTOR = 'svc-github-app';
export const MCP_ACTOR = 'svc-mcp';
const DAY_MS = 86_400_000;

const PRE_DELIVERY: readonly FixStatus[] = ['DRAFT', 'SCOPING', 'PROPOSING', 'PROPOSED', 'GATING', 'GATE_FAILED', 'GATE_INCONCLUSIVE', 'VERIFIED'];
const VERIFY_FROM: readonly FixStatus[] = ['PROPOSED', 'VERIFIED', 'GATE_FAILED', 'GATE_INCONCLUSIVE'];
const CONFIRMED: readonly FixStatus[] = ['SHIPPED', 'CONFIRMING', 'HELD'];

export interface FixPipelineDeps {
  fixes: FixStore;
  kv: JsonKv;
  problems: ProblemSource;
  prompts: PromptRegistry;
  harness: HarnessStore;
  replay: ReplayService;
  evidence: EvidenceReader;
  proposer: Proposer;
  codeHost?: CodeHost;
  now: () => number;
  magicPrefix: string;
  /** Base URL written into packets (evidence links); empty leaves links out. */
  publicUrl: string;
  gateSeeds?: number;
  claimStaleMs?: number;
}

export interface MergeNotification {
  prBody: string;
  headRef: string;
  prUrl: string;
  mergeCommit: string;
  mergedAt: string;
}

export interface FixPipeline {
  draft(tenant: string, problemId: string, input: { fixType: DraftRoute }, actor: string): Promise<Fix>;
  get(tenant: string, fixId: string): Promise<Fix>;
  listForProblem(tenant: string, problemId: string): Promise<Fix[]>;
  queue(tenant: string, input: { status?: FixStatus; limit: number; offset: number }): Promise<{ fixes: Fix[]; hasMore: boolean }>;
  advance(tenant: string, fixId: string, actor: string): Promise<Fix>;
  verify(tenant: string, fixId: string, input: { candidateContent?: string }, actor: string): Promise<{ gateRunId: string; fix: Fix }>;
  submit(tenant: string, fixId: string, input: { channel: SubmitChannel; localRef?: string }, actor: string): Promise<Fix>;
  dismiss(tenant: string, fixId: string, reason: string, actor: string): Promise<Fix>;
  markApplied(tenant: string, fixId: string, note: string | undefined, actor: string): Promise<{ fix: Fix; duplicate: boolean; feedbackId: string | null; warning?: string }>;
  onMerge(n: MergeNotification): Promise<Array<{ fix_id: string; short_ref: string; status: FixStatus; feedback_id: string | null; duplicate: boolean; outcome: MergeOutcome }>>;
  packet(tenant: string, fixId: string): Promise<FixPacket>;
  checkout(tenant: string, fixId: string): Promise<{ fix: Fix; targetPath: string | null; candidateText: string; branch: string; magicWord: string; candidateVersionId: string }>;
  draftBatch(tenant: string, limit: number, actor: string): Promise<{ drafted: Fix[]; skipped: Array<{ problem_id: string; reason: string }>; scanned: number }>;
  gateRuns(tenant: string, fixId: string): Promise<{ gate: RunStatus | null; control: RunStatus | null }>;
  /** Candidate text of a fix (proposed or uploaded), if any. */
  candidateText(tenant: string, fixId: string): Promise<string | undefined>;
  history(tenant: string, fixId: string): ReturnType<FixStore['history']>;
}

export function createFixPipeline(deps: FixPipelineDeps): FixPipeline {
  const iso = () => new Date(deps.now()).toISOString();
  const staleMs = deps.claimStaleMs ?? 120_000;
  const seeds = deps.gateSeeds ?? 3;
  const candKey = (tenant: string, id: string) => `fcand.${tenant}.${id}`;

  const requireProblemId = (id: string) => {
    if (!UUID_PATTERN.test(id)) throw new InvalidProblemIdError(id);
  };

  const load = async (tenant: string, fixId: string): Promise<FixEntry> => {
    let id = fixId;
    const ref = fixId.toUpperCase().replace(new RegExp(`^${deps.magicPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), '');
    if (isShortRef(ref)) {
      const r = await deps.fixes.byShortRef(ref);
      if (r && r.tenant === tenant) id = r.fixId;
    }
    const e = await deps.fixes.get(tenant, id);
    if (!e) throw new FixNotFoundError(fixId);
    return e;
  };

  /** Writes `patch` at the entry's revision; a concurrent change gives the current row (no throw). */
  const tryWrite = async (e: FixEntry, patch: Partial<StoredFix>, trigger: string, actor: string): Promise<{ entry: FixEntry; won: boolean }> => {
    const next: StoredFix = { ...e.fix, ...patch, updatedAt: iso() };
    try {
      return { entry: await deps.fixes.update(e, next, { trigger, actor }), won: true };
    } catch (err) {
      if (!(err instanceof KvConflictError)) throw err;
      const cur = await deps.fixes.get(e.fix.tenantId, e.fix.id);
      return { entry: cur ?? e, won: false };
    }
  };

  /** Like tryWrite, but a lost race is a 409 (mutations that must not silently do nothing). */
  const mustWrite = async (e: FixEntry, patch: Partial<StoredFix>, trigger: string, actor: string): Promise<FixEntry> => {
    const r = await tryWrite(e, patch, trigger, actor);
    if (!r.won) throw new FixStatusConflictError(trigger, `${r.entry.fix.status} (changed concurrently)`, '');
    return r.entry;
  };

  /** spec: SHIPPED/CONFIRMING become REGRESSED when the problem reopened, HELD after 14 clean days. */
  const reconcile = async (e: FixEntry): Promise<FixEntry> => {
    const f = e.fix;
    if (f.status !== 'SHIPPED' && f.status !== 'CONFIRMING') return e;
    const p = await deps.problems.get(f.tenantId, f.problemId);
    const lifecycle = p?.lifecycle;
    const sawMonitoring = f.status === 'CONFIRMING' || f.lifecycleAtShip !== 'reopened';
    let patch: Partial<StoredFix> | undefined;
    if (lifecycle === 'reopened' && sawMonitoring) patch = { status: 'REGRESSED', statusReason: 'the problem reopened after the fix shipped (the root cause recurred)' };
    else if (f.shippedAt && deps.now() - Date.parse(f.shippedAt) >= MONITORING_DAYS * DAY_MS && lifecycle !== 'reopened') {
      patch = { status: 'HELD', statusReason: `${MONITORING_DAYS} clean monitoring days since the fix shipped` };
    } else if (f.status === 'SHIPPED' && lifecycle === 'fixed_monitoring') patch = { status: 'CONFIRMING', statusReason: 'the problem is in fixed-monitoring: watching for recurrence' };
    if (!patch) return e;
    return (await tryWrite(e, patch, 'reconcile', 'system')).entry;
  };

  const decorate = async (e: FixEntry, rank?: Map<string, number | null>): Promise<Fix> => {
    const f = publicFix(e.fix);
    if (rank?.has(f.problemId)) return { ...f, problemRank: rank.get(f.problemId) ?? null };
    return f;
  };

  const getProblem = async (tenant: string, problemId: string): Promise<ProblemInfo> => {
    requireProblemId(problemId);
    const p = await deps.problems.get(tenant, problemId);
    if (!p) throw new ProblemNotFoundError(problemId);
    return p;
  };

  // ---- claims --------------------------------------------------------------------------------

  const claim = async (e: FixEntry, patch: Partial<StoredFix>, actor: string): Promise<{ entry: FixEntry; won: boolean }> => {
    const c = e.fix.claim;
    if (c && deps.now() - Date.parse(c.at) < staleMs) return { entry: e, won: false };
    return tryWrite(e, { ...patch, claim: { id: randomUUID(), at: iso() } }, 'advance', actor);
  };

  const release = async (e: FixEntry, actor: string, reason?: string) => {
    await tryWrite(e, { claim: null, ...(reason ? { statusReason: reason } : {}) }, 'advance', actor).catch(() => undefined);
  };

  /** Runs `work` under a claim; the claim is dropped with the step's outcome in one write. */
  const step = async (e: FixEntry, claimPatch: Partial<StoredFix>, actor: string, work: (f: StoredFix) => Promise<Partial<StoredFix>>): Promise<FixEntry> => {
    const c = await claim(e, claimPatch, actor);
    if (!c.won) return c.entry;
    let outcome: Partial<StoredFix>;
    try {
      outcome = await work(c.entry.fix);
    } catch (err) {
      await release(c.entry, actor, err instanceof AppError && err.expose ? `step failed: ${err.message}` : undefined);
      throw err;
    }
    return (await tryWrite(c.entry, { ...outcome, claim: null }, 'advance', actor)).entry;
  };

  // ---- scoping -------------------------------------------------------------------------------

  const checksOf = (p: ProblemInfo): string[] => {
    const stop = new Set(['which', 'where', 'there', 'their', 'about', 'after', 'before', 'because', 'should', 'would', 'could', 'agent', 'users', 'being', 'other', 'without']);
    const words = (p.causeStatement.toLowerCase().match(/[a-z][a-z-]{4,}/g) ?? []).filter((w) => !stop.has(w));
    return [...new Set(words)].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, 3);
  };

  const scope = async (f: StoredFix): Promise<Partial<StoredFix>> => {
    const p = await deps.problems.get(f.tenantId, f.problemId);
    if (!p || p.lifecycle === 'resolved') return { status: 'ABANDONED', statusReason: p ? 'the problem was resolved before the fix was delivered' : 'the problem no longer exists' };
    const attributions = await deps.problems.trustedAttributions(f.tenantId, p.problemId);
    if (!attributions.length) return { status: 'NO_EVIDENCE', statusReason: 'the problem has no trusted attributions to build a replay set from', rubricVersion: p.rubricVersion };
    const byConversation = new Map<string, number>();
    for (const a of attributions) if (!byConversation.has(a.conversationId)) byConversation.set(a.conversationId, a.msgIndex);
    const ids = [...byConversation.keys()].sort().slice(0, MAX_REPLAY_CASES);
    if (ids.length < MIN_REPLAY_CASES) {
      return { status: 'BLOCKED_COVERAGE', statusReason: `${ids.length} evidence conversation(s); a gate needs at least ${MIN_REPLAY_CASES} (repair and holdout)`, rubricVersion: p.rubricVersion };
    }
    const [scenarios, failures] = await Promise.all([deps.evidence.scenarios(f.tenantId, ids), deps.evidence.toolFailures(f.tenantId, ids)]);
    const failingTools: Record<string, number> = {};
    for (const t of failures) failingTools[t.toolName] = (failingTools[t.toolName] ?? 0) + t.failures;
    const text = [p.displayName, p.causeStatement, JSON.stringify(p.matchCriteria ?? {}), p.families.join(' ')].join(' ');
    const graph = await deps.harness.latestGraph(f.tenantId);
    const decision = routeProblem(graph, { failingTools, text }, f.requestedRoute);
    const checks = checksOf(p);
    const cases: ReplayCase[] = ids.map((id, i) => ({ case_id: `c${String(i + 1).padStart(3, '0')}`, conversation_id: id, msg_index: byConversation.get(id)!, scenario: scenarios.get(id) ?? '', checks }));
    // deterministic split: order by a hash of the conversation id; every second case is held out
    const ordered = [...cases].sort((a, b) => sha256(a.conversation_id).localeCompare(sha256(b.conversation_id)));
    const holdout = ordered.filter((_, i) => i % 2 === 1).map((c) => c.case_id);
    const repair = ordered.filter((_, i) => i % 2 === 0).map((c) => c.case_id);
    const set = await deps.replay.createSet(f.tenantId, { name: `${magicWord(f.shortRef, deps.magicPrefix)} replay set`, cases, source: 'fix' });
    const common: Partial<StoredFix> = { rubricVersion: p.rubricVersion, replaySetId: set.setId, repairCaseIds: repair, holdoutCaseIds: holdout, problemRank: p.rankScore };
    if (!decision) {
      return {
        ...common,
        fixType: 'UNROUTED',
        status: 'UNROUTED',
        statusReason: graph ? `no harness artifact matches the evidence${f.requestedRoute === 'prompt' ? ' (prompt route only)' : ''}` : 'no harness graph uploaded (harness_sync) to route the problem to',
        targetArtifactKey: null,
        targetSourcePath: null,
        routeConfidence: null,
      };
    }
    const routed: Partial<StoredFix> = {
      ...common,
      fixType: decision.fixType,
      targetArtifactKey: decision.artifact.key,
      targetSourcePath: decision.artifact.source_path ?? null,
      routeConfidence: decision.confidence,
    };
    if (decision.fixType !== 'PROMPT') {
      return { ...routed, status: 'HANDED_OFF', statusReason: `${decision.fixType} fixes are packet-only: apply the packet in the harness repository` };
    }
    const rec = await deps.prompts.get(f.tenantId, decision.artifact.prompt_key ?? decision.artifact.key);
    const baselineVersionId = rec && !rec.removed ? (rec.labels.prod ?? null) : null;
    if (!baselineVersionId && decision.artifact.content === undefined) {
      return { ...routed, status: 'UNROUTED', statusReason: `prompt artifact ${decision.artifact.key} has no prod-labeled registry version and no content in the harness graph to patch` };
    }
    return {
      ...routed,
      promptId: rec?.promptId ?? null,
      baselineVersionId,
      status: 'PROPOSING',
      statusReason: `routed to ${decision.artifact.key} (confidence ${decision.confidence}); ${repair.length} repair and ${holdout.length} holdout cases`,
    };
  };

  const artifactOf = async (f: StoredFix): Promise<HarnessArtifact | undefined> => {
    const g = await deps.harness.latestGraph(f.tenantId);
    return g?.artifacts.find((a) => a.key === f.targetArtifactKey);
  };

  const baselineContent = async (f: StoredFix): Promise<string> => {
    if (f.baselineVersionId) {
      const c = await deps.prompts.content(f.tenantId, f.baselineVersionId);
      if (c !== undefined) return c;
    }
    return (await artifactOf(f))?.content ?? '';
  };

  // ---- proposing -----------------------------------------------------------------------------

  const propose = async (f: StoredFix): Promise<Partial<StoredFix>> => {
    const p = await deps.problems.get(f.tenantId, f.problemId);
    if (!p || p.lifecycle === 'resolved') return { status: 'ABANDONED', statusReason: p ? 'the problem was resolved before the fix was delivered' : 'the problem no longer exists' };
    const set = f.replaySetId ? await deps.replay.getSet(f.tenantId, f.replaySetId) : undefined;
    const repairIds = new Set(f.repairCaseIds);
    // the holdout never reaches a proposer
    const repairCases = (set?.cases ?? []).filter((c) => repairIds.has(c.case_id));
    const hints = (await deps.evidence.toolFailures(f.tenantId, repairCases.map((c) => c.conversation_id))).map((t) => t.actionHint).filter(Boolean);
    const baseline = await baselineContent(f);
    const proposal = await deps.proposer.propose({ problem: p, baseline, repairCases, actionHints: hints, magicWord: magicWord(f.shortRef, deps.magicPrefix) });
    if (!proposal) return { status: 'NO_HEADROOM', statusReason: `the ${deps.proposer.kind} proposer found nothing to add to the baseline prompt` };
    await deps.kv.put(candKey(f.tenantId, f.id), { content: proposal.content });
    let promptVersionId = '';
    if (f.promptId) {
      const v = await deps.prompts.addVersion(f.tenantId, f.promptId, proposal.content, { source: 'fix', changelog: proposal.changelog, risks: proposal.risks });
      promptVersionId = v.versionId;
    }
    return {
      status: 'PROPOSED',
      statusReason: promptVersionId ? `candidate registered as prompt version ${promptVersionId}` : 'candidate proposed (the prompt is not in the registry: not registered as a version)',
      candidateRef: { promptVersionId, changelog: proposal.changelog, risks: proposal.risks, ...(promptVersionId ? {} : { contentSha256: sha256(proposal.content) }) },
    };
  };

  // ---- gating --------------------------------------------------------------------------------

  const startGate = async (f: StoredFix, candidate: { content: string; versionId: string }): Promise<Partial<StoredFix>> => {
    if (!f.replaySetId) throw new FixCandidateInvalidError('the fix has no replay set');
    await deps.replay.requireWorker();
    const baseline = { content: await baselineContent(f), versionId: f.baselineVersionId ?? '' };
    const gate = await deps.replay.startRun(f.tenantId, { setId: f.replaySetId, kind: 'gate', caseIds: [...f.repairCaseIds, ...f.holdoutCaseIds], seeds, assistantModel: '', arms: { baseline, candidate } });
    const control = await deps.replay.startRun(f.tenantId, { setId: f.replaySetId, kind: 'control', caseIds: f.holdoutCaseIds, seeds, assistantModel: '', arms: { baseline, candidate: baseline } });
    return { status: 'GATING', statusReason: 'gate (baseline vs candidate) and control (baseline vs baseline) runs queued', gateRunId: gate.runId, controlRunId: control.runId, gateResult: null };
  };

  const candidateOf = async (f: StoredFix): Promise<{ content: string; versionId: string }> => {
    const stored = await deps.kv.get<{ content: string }>(candKey(f.tenantId, f.id));
    if (!stored) throw new FixCandidateInvalidError('the fix has no candidate to gate');
    return { content: stored.content, versionId: f.candidateRef?.promptVersionId ?? '' };
  };

  const gateResultOf = (f: StoredFix, gate: RunStatus, control: RunStatus): GateResult => {
    const byId = new Map(gate.cases.map((c) => [c.caseId, c]));
    const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000 : 0);
    const arm = (ids: string[]) => {
      const live = ids.map((id) => byId.get(id)).filter((c) => c && !c.abstained) as Array<{ baseline: number; candidate: number }>;
      return { baseline: mean(live.map((c) => c.baseline)), candidate: mean(live.map((c) => c.candidate)), n: ids.length };
    };
    let wins = 0;
    let losses = 0;
    let abstained = 0;
    for (const id of f.holdoutCaseIds) {
      const c = byId.get(id);
      if (!c || c.abstained) {
        abstained++;
        continue;
      }
      if (c.candidate! > c.baseline!) wins++;
      else if (c.candidate! < c.baseline!) losses++;
    }
    const noiseFloor = control.cases.filter((c) => !c.abstained && c.baseline !== c.candidate).length;
    const v = verdictOf({ holdoutN: f.holdoutCaseIds.length, wins, losses, abstained, noiseFloor });
    return { repair: arm(f.repairCaseIds), holdout: { ...arm(f.holdoutCaseIds), wins, losses }, noiseFloor, abstained, verdict: v.verdict, reason: v.reason };
  };

  const pollGate = async (e: FixEntry, actor: string): Promise<FixEntry> => {
    const f = e.fix;
    if (!f.gateRunId || !f.controlRunId) return e;
    const [gate, control] = await Promise.all([deps.replay.status(f.tenantId, f.gateRunId), deps.replay.status(f.tenantId, f.controlRunId)]);
    if (gate.status !== 'completed' || control.status !== 'completed') {
      const reason = `gate ${gate.received}/${gate.expected} results, control ${control.received}/${control.expected}`;
      if (reason === f.statusReason) return e;
      return (await tryWrite(e, { statusReason: reason }, 'advance', actor)).entry;
    }
    const result = gateResultOf(f, gate, control);
    const status: FixStatus = result.verdict === 'pass' ? 'VERIFIED' : result.verdict === 'inconclusive' ? 'GATE_INCONCLUSIVE' : 'GATE_FAILED';
    return (await tryWrite(e, { status, statusReason: `verdict ${result.verdict}: ${result.reason}`, gateResult: result }, 'advance', actor)).entry;
  };

  // ---- feedback ------------------------------------------------------------------------------

  const fixRefPayload = (f: StoredFix) => ({
    fix_id: f.id,
    short_ref: f.shortRef,
    pr_url: f.fixRef?.prUrl ?? f.prUrl ?? '',
    merge_commit: f.fixRef?.mergeCommit ?? '',
    prompt_version_id: f.fixRef?.promptVersionId ?? f.candidateRef?.promptVersionId ?? '',
  });

  const postMarkFixed = async (f: StoredFix, actor: string) => deps.problems.submitFeedback(f.tenantId, f.problemId, { action: 'mark_fixed', actor, fix_ref: fixRefPayload(f) });

  const ship = async (e: FixEntry, fixRef: StoredFix['fixRef'], reason: string, trigger: string, actor: string): Promise<FixEntry> => {
    const p = await deps.problems.get(e.fix.tenantId, e.fix.problemId);
    const patch = { status: 'SHIPPED' as FixStatus, statusReason: reason, fixRef, shippedAt: iso(), lifecycleAtShip: p?.lifecycle ?? 'open' };
    return mustWrite(e, patch, trigger, actor);
  };

  // ---- the pipeline --------------------------------------------------------------------------

  const self: FixPipeline = {
    async draft(tenant, problemId, input, actor) {
      const p = await getProblem(tenant, problemId);
      for (let attempt = 0; attempt < 10; attempt++) {
        const slot = await deps.fixes.activeFixId(tenant, p.problemId);
        if (slot) {
          let cur = await deps.fixes.get(tenant, slot.fixId);
          // a concurrent draft took the slot and is creating its fix: wait for it (a writer that
          // died between the two writes leaves the slot free again after DRAFT_CREATE_WAIT_MS)
          for (let waited = 0; !cur && waited < DRAFT_CREATE_WAIT_MS; waited += 50) {
            await new Promise((r) => setTimeout(r, 50));
            cur = await deps.fixes.get(tenant, slot.fixId);
          }
          if (cur) {
            const r = await reconcile(cur);
            if (ACTIVE_STATUSES.includes(r.fix.status)) return publicFix(r.fix);
          }
        }
        const id = randomUUID();
        if (!(await deps.fixes.setActive(tenant, p.problemId, id, slot?.revision ?? 0))) continue;
        const previous = (await deps.fixes.list(tenant)).filter((x) => x.fix.problemId === p.problemId && x.fix.rubricVersion === p.rubricVersion);
        const at = iso();
        for (let r = 0; ; r++) {
          const fix: StoredFix = {
            id,
            shortRef: newShortRef(),
            tenantId: tenant,
            problemId: p.problemId,
            rubricVersion: p.rubricVersion,
            attemptNo: previous.length + 1,
            fixType: input.fixType === 'prompt' ? 'PROMPT' : 'UNROUTED',
            status: 'DRAFT',
            statusReason: input.fixType === 'prompt' ? 'drafted (prompt route only)' : 'drafted (route from evidence)',
            targetArtifactKey: null,
            targetSourcePath: null,
            routeConfidence: null,
            promptId: null,
            baselineVersionId: null,
            replaySetId: null,
            repairCaseIds: [],
            holdoutCaseIds: [],
            candidateRef: null,
            gateRunId: null,
            controlRunId: null,
            gateResult: null,
            deliveryChannel: null,
            prUrl: null,
            prBranch: null,
            fixRef: null,
            problemRank: p.rankScore,
            createdAt: at,
            updatedAt: at,
            requestedRoute: input.fixType,
            claim: null,
            shippedAt: null,
            feedbackIds: [],
            prNumber: null,
          };
          try {
            return publicFix((await deps.fixes.create(fix, { trigger: 'draft', actor })).fix);
          } catch (err) {
            if (!(err instanceof KvExistsError) || r > 5) throw err;
          }
        }
      }
      throw new FixStatusConflictError('draft', 'concurrently drafted', '');
    },

    async get(tenant, fixId) {
      return decorate(await reconcile(await load(tenant, fixId)));
    },

    async listForProblem(tenant, problemId) {
      const p = await getProblem(tenant, problemId);
      const all = (await deps.fixes.list(tenant)).filter((e) => e.fix.problemId === p.problemId || e.fix.problemId === problemId);
      const out: Fix[] = [];
      for (const e of all.sort((a, b) => b.fix.createdAt.localeCompare(a.fix.createdAt))) out.push(publicFix((await reconcile(e)).fix));
      return out;
    },

    async queue(tenant, { status, limit, offset }) {
      const entries = await deps.fixes.list(tenant);
      const rank = new Map<string, number | null>();
      const reconciled: FixEntry[] = [];
      for (const e of entries) reconciled.push(await reconcile(e));
      for (const pid of new Set(reconciled.map((e) => e.fix.problemId))) {
        const p = await deps.problems.get(tenant, pid);
        rank.set(pid, p ? p.rankScore : null);
      }
      const rows = reconciled
        .filter((e) => !status || e.fix.status === status)
        .map((e) => ({ ...publicFix(e.fix), problemRank: rank.get(e.fix.problemId) ?? null }))
        .sort((a, b) => (b.problemRank ?? -Infinity) - (a.problemRank ?? -Infinity) || b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
      return { fixes: rows.slice(offset, offset + limit), hasMore: rows.length > offset + limit };
    },

    async advance(tenant, fixId, actor) {
      let e = await reconcile(await load(tenant, fixId));
      const s = e.fix.status;
      if (s === 'DRAFT' || s === 'SCOPING') e = await step(e, { status: 'SCOPING', statusReason: 'scoping evidence' }, actor, scope);
      else if (s === 'PROPOSING') e = await step(e, {}, actor, propose);
      else if (s === 'PROPOSED') e = await step(e, {}, actor, async (f) => startGate(f, await candidateOf(f)));
      else if (s === 'GATING') e = await pollGate(e, actor);
      return decorate(e);
    },

    async verify(tenant, fixId, { candidateContent }, actor) {
      const e = await load(tenant, fixId);
      const f = e.fix;
      if (!VERIFY_FROM.includes(f.status)) throw new FixStatusConflictError('verify', f.status, VERIFY_FROM.join(', '));
      if (f.claim && deps.now() - Date.parse(f.claim.at) < staleMs) throw new FixStatusConflictError('verify', `${f.status} (a step is in progress)`, '');
      let candidate: { content: string; versionId: string };
      let candidateRef = f.candidateRef;
      if (candidateContent !== undefined) {
        if (candidateContent.trim().length < CANDIDATE_MIN_CHARS) throw new BadRequestError(`candidateContent must be at least ${CANDIDATE_MIN_CHARS} characters`);
        candidate = { content: candidateContent, versionId: '' };
        candidateRef = { promptVersionId: '', contentSha256: sha256(candidateContent) };
      } else candidate = await candidateOf(f);
      const c = await claim(e, {}, actor);
      if (!c.won) throw new FixStatusConflictError('verify', `${c.entry.fix.status} (changed concurrently)`, '');
      let patch: Partial<StoredFix>;
      try {
        patch = await startGate(c.entry.fix, candidate);
      } catch (err) {
        await release(c.entry, actor);
        throw err;
      }
      if (candidateContent !== undefined) await deps.kv.put(candKey(tenant, f.id), { content: candidateContent });
      const w = await mustWrite(c.entry, { ...patch, candidateRef, claim: null }, 'verify', actor);
      return { gateRunId: w.fix.gateRunId!, fix: publicFix(w.fix) };
    },

    async submit(tenant, fixId, { channel, localRef }, actor) {
      const e = await load(tenant, fixId);
      const f = e.fix;
      if (f.status !== 'VERIFIED') throw new FixStatusConflictError('submit', f.status, 'VERIFIED');
      const all = (await deps.fixes.list(tenant)).filter((x) => x.fix.id !== f.id);
      const supersede = async () => {
        for (const o of all) {
          const sameTarget = (o.fix.problemId === f.problemId || (!!f.targetSourcePath && o.fix.targetSourcePath === f.targetSourcePath)) && PRE_DELIVERY.includes(o.fix.status);
          if (sameTarget && o.fix.createdAt <= f.createdAt) {
            await tryWrite(o, { status: 'SUPERSEDED', statusReason: `superseded by ${magicWord(f.shortRef, deps.magicPrefix)} (delivered first)` }, 'submit', actor);
          }
        }
      };
      if (channel === 'local_ref') {
        if (!localRef) throw new FixDeliveryInvalidError('localRef is required with channel local_ref');
        const w = await mustWrite(e, { status: 'APPLIED_LOCALLY', statusReason: `applied locally on ${localRef}`, deliveryChannel: 'local', prBranch: localRef }, 'submit', actor);
        await supersede();
        return publicFix(w.fix);
      }
      if (!f.targetSourcePath || !f.candidateRef?.promptVersionId) {
        throw new FixDeliveryInvalidError('a pr submit needs a routed target file and a registered candidate version (use channel local_ref for a locally verified candidate)');
      }
      if (!deps.codeHost) throw codeHostUnavailable();
      const open = all.filter((x) => x.fix.status === 'PR_OPEN');
      const name = (x: FixEntry) => `${magicWord(x.fix.shortRef, deps.magicPrefix)} (fix ${x.fix.id}, ${x.fix.prUrl ?? 'no url'})`;
      const sameProblem = open.find((x) => x.fix.problemId === f.problemId);
      if (sameProblem) throw new FixThrottledError(`duplicate PR: the problem already has an open fix PR: ${name(sameProblem)}`);
      const sameFile = open.find((x) => x.fix.targetSourcePath === f.targetSourcePath);
      if (sameFile) throw new FixThrottledError(`duplicate PR: ${f.targetSourcePath} already has an open fix PR: ${name(sameFile)}`);
      if (open.length >= MAX_OPEN_PRS) throw new FixThrottledError(`${open.length} fix PRs are open in this workspace (limit ${MAX_OPEN_PRS}), e.g. ${name(open[0]!)}`);
      const c = await claim(e, {}, actor);
      if (!c.won) throw new FixStatusConflictError('submit', `${c.entry.fix.status} (a step is in progress)`, '');
      const mw = magicWord(f.shortRef, deps.magicPrefix);
      const branch = fixBranch(f.shortRef);
      let pr: { url: string; number: number };
      try {
        const { content } = await candidateOf(f);
        const p = await deps.problems.get(tenant, f.problemId);
        const g = f.gateResult;
        const body = [
          `Candidate fix for the problem "${(p?.displayName ?? f.problemId).replace(/[\r\n]+/g, ' ').slice(0, 200)}" (rubric v${f.rubricVersion}).`,
          '',
          f.candidateRef.changelog ? `Changelog: ${f.candidateRef.changelog}` : '',
          f.candidateRef.risks ? `Risks: ${f.candidateRef.risks}` : '',
          g ? `Replay gate on ${g.holdout.n} held-out cases: ${g.holdout.wins} wins, ${g.holdout.losses} losses, noise floor ${g.noiseFloor}, verdict ${g.verdict}.` : '',
          `Candidate prompt version: ${f.candidateRef.promptVersionId}.`,
          '',
          `Fixes ${mw}`,
        ]
          .filter((l, i, a) => l !== '' || a[i - 1] !== '')
          .join('\n');
        pr = await deps.codeHost.openDraftPr({ branch, title: `Fix ${mw}: ${(p?.displayName ?? '').replace(/[\r\n]+/g, ' ').slice(0, 80)}`.trim(), body, path: f.targetSourcePath, content, commitMessage: `Fix ${mw}` });
      } catch (err) {
        await release(c.entry, actor);
        throw err;
      }
      const w = await mustWrite(c.entry, { status: 'PR_OPEN', statusReason: `draft PR opened: ${pr.url}`, deliveryChannel: 'pr', prUrl: pr.url, prBranch: branch, prNumber: pr.number, claim: null }, 'submit', actor);
      await supersede();
      return publicFix(w.fix);
    },

    async dismiss(tenant, fixId, reason, actor) {
      const e = await load(tenant, fixId);
      if (UNDISMISSABLE.includes(e.fix.status)) throw new FixStatusConflictError('dismiss', e.fix.status, FIX_STATUSES.filter((s) => !UNDISMISSABLE.includes(s)).join(', '));
      if (e.fix.claim && deps.now() - Date.parse(e.fix.claim.at) < staleMs) throw new FixStatusConflictError('dismiss', `${e.fix.status} (a step is in progress)`, '');
      const w = await mustWrite(e, { status: 'REJECTED', statusReason: `dismissed: ${reason}`, claim: null }, 'dismiss', actor);
      const fb = await deps.problems.submitFeedback(tenant, w.fix.problemId, { action: 'dismiss', actor, reason: `fix ${magicWord(w.fix.shortRef, deps.magicPrefix)} dismissed: ${reason}`.slice(0, 2000) });
      const final = await tryWrite(w, { feedbackIds: [...w.fix.feedbackIds, fb.feedbackId] }, 'dismiss', actor);
      return publicFix(final.entry.fix);
    },

    async markApplied(tenant, fixId, note, actor) {
      const e = await reconcile(await load(tenant, fixId));
      if (CONFIRMED.includes(e.fix.status)) {
        return { fix: publicFix(e.fix), duplicate: true, feedbackId: e.fix.feedbackIds.at(-1) ?? null, warning: `fix is already ${e.fix.status}: nothing recorded` };
      }
      const fixRef = { prUrl: e.fix.prUrl ?? '', mergeCommit: '', promptVersionId: e.fix.candidateRef?.promptVersionId ?? '', mergedAt: iso() };
      const w = await ship(e, fixRef, `marked applied${note ? `: ${note.slice(0, 600)}` : ''}`, 'mark_applied', actor);
      const fb = await postMarkFixed(w.fix, actor);
      const final = await tryWrite(w, { feedbackIds: [...new Set([...w.fix.feedbackIds, fb.feedbackId])] }, 'mark_applied', actor);
      return { fix: publicFix(final.entry.fix), duplicate: fb.duplicate, feedbackId: fb.feedbackId };
    },

    async onMerge(n) {
      const refs = findShortRefs(`${n.prBody}\n${n.headRef}`, deps.magicPrefix);
      const out: Awaited<ReturnType<FixPipeline['onMerge']>> = [];
      for (const ref of refs) {
        const loc = await deps.fixes.byShortRef(ref);
        if (!loc) continue;
        let e = await deps.fixes.get(loc.tenant, loc.fixId);
        if (!e) continue;
        if (e.fix.status === 'PR_OPEN') {
          const fixRef = { prUrl: n.prUrl || e.fix.prUrl || '', mergeCommit: n.mergeCommit, promptVersionId: e.fix.candidateRef?.promptVersionId ?? '', mergedAt: n.mergedAt || iso() };
          try {
            e = await ship(e, fixRef, `pull request merged (${n.mergeCommit.slice(0, 12)})`, 'merge_notification', GITHUB_APP_ACTOR);
          } catch (err) {
            if (!(err instanceof FixStatusConflictError)) throw err;
            e = (await deps.fixes.get(loc.tenant, loc.fixId))!;
          }
        } else if (!(e.fix.fixRef && e.fix.fixRef.mergeCommit === n.mergeCommit)) {
          out.push({ fix_id: e.fix.id, short_ref: e.fix.shortRef, status: e.fix.status, feedback_id: null, duplicate: false, outcome: 'ignored' });
          continue;
        }
        // a redelivery after a problems run applied the feedback (CONFIRMING, HELD, REGRESSED)
        // must not post it again: that would mark a reopened problem fixed once more
        if (e.fix.status !== 'SHIPPED' && e.fix.feedbackIds.length) {
          out.push({ fix_id: e.fix.id, short_ref: e.fix.shortRef, status: e.fix.status, feedback_id: e.fix.feedbackIds.at(-1)!, duplicate: true, outcome: 'converged' });
          continue;
        }
        // first delivery or a redelivery: the same payload gives the same pending feedback row
        const fb = await postMarkFixed(e.fix, GITHUB_APP_ACTOR);
        if (!e.fix.feedbackIds.includes(fb.feedbackId)) await tryWrite(e, { feedbackIds: [...e.fix.feedbackIds, fb.feedbackId] }, 'merge_notification', GITHUB_APP_ACTOR);
        out.push({ fix_id: e.fix.id, short_ref: e.fix.shortRef, status: e.fix.status, feedback_id: fb.feedbackId, duplicate: fb.duplicate, outcome: fb.duplicate ? 'converged' : 'shipped' });
      }
      return out;
    },

    async packet(tenant, fixId) {
      const e = await reconcile(await load(tenant, fixId));
      const f = e.fix;
      const p = await deps.problems.get(tenant, f.problemId);
      const set = f.replaySetId ? await deps.replay.getSet(tenant, f.replaySetId) : undefined;
      const evidence = set
        ? set.cases.map((c) => ({ conversationId: c.conversation_id, msgIndex: c.msg_index }))
        : (await deps.problems.trustedAttributions(tenant, f.problemId).catch(() => [])).map((a) => ({ conversationId: a.conversationId, msgIndex: a.msgIndex }));
      return buildPacket({ fix: f, title: p?.displayName ?? '', causeStatement: p?.causeStatement ?? '', evidence, publicUrl: deps.publicUrl, magicPrefix: deps.magicPrefix });
    },

    async checkout(tenant, fixId) {
      const e = await load(tenant, fixId);
      const f = e.fix;
      if (f.fixType === 'TOOL_SCHEMA' || f.fixType === 'SKILL') throw new FixCandidateInvalidError(`${f.fixType} fixes have no candidate text to check out: use the packet`);
      const stored = await deps.kv.get<{ content: string }>(candKey(tenant, f.id));
      if (!f.candidateRef || !stored) throw new FixCandidateInvalidError('the fix has no proposed candidate yet (advance it to PROPOSED first)');
      return {
        fix: publicFix(f),
        targetPath: f.targetSourcePath,
        candidateText: stored.content,
        branch: fixBranch(f.shortRef),
        magicWord: `Fixes ${magicWord(f.shortRef, deps.magicPrefix)}`,
        candidateVersionId: f.candidateRef.promptVersionId,
      };
    },

    async draftBatch(tenant, limit, actor) {
      const problems = await deps.problems.listRanked(tenant, 100);
      const drafted: Fix[] = [];
      const skipped: Array<{ problem_id: string; reason: string }> = [];
      const entries = await deps.fixes.list(tenant);
      let scanned = 0;
      for (const p of problems) {
        if (drafted.length >= limit) break;
        scanned++;
        const slot = await deps.fixes.activeFixId(tenant, p.problemId);
        const cur = slot ? entries.find((x) => x.fix.id === slot.fixId) : undefined;
        if (cur && ACTIVE_STATUSES.includes(cur.fix.status)) {
          skipped.push({ problem_id: p.problemId, reason: `active fix ${magicWord(cur.fix.shortRef, deps.magicPrefix)} in ${cur.fix.status}` });
          continue;
        }
        if (p.lifecycle === 'fixed_monitoring' || p.lifecycle === 'resolved') {
          skipped.push({ problem_id: p.problemId, reason: `problem is ${p.lifecycle}` });
          continue;
        }
        drafted.push(await self.draft(tenant, p.problemId, { fixType: 'auto' }, actor));
      }
      return { drafted, skipped, scanned };
    },

    async gateRuns(tenant, fixId) {
      const f = (await load(tenant, fixId)).fix;
      return {
        gate: f.gateRunId ? await deps.replay.status(tenant, f.gateRunId) : null,
        control: f.controlRunId ? await deps.replay.status(tenant, f.controlRunId) : null,
      };
    },

    async candidateText(tenant, fixId) {
      const f = (await load(tenant, fixId)).fix;
      return (await deps.kv.get<{ content: string }>(candKey(tenant, f.id)))?.content;
    },

    history: (tenant, fixId) => deps.fixes.history(tenant, fixId),
  };
  return self;
}
