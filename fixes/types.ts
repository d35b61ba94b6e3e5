/**
 * The fix object of spec/fix-pipeline.md (camelCase on the wire) and the values it takes.
 * The live object is stored in the th_fixes KV bucket; its transitions in ClickHouse fix_history.
 */
export { FIX_STATUSES, FIX_TYPES, type FixStatus, type FixType } from '../schemas/api/fix-values.js';
import type { DeliveryChannel, DraftRoute, FixStatus, FixType, GateVerdict } from '../schemas/api/fix-values.js';

/**
 * Statuses in which a fix still occupies its problem: drafting again returns it. A fix that ended
 * (rejected, superseded, abandoned, held, regressed, or stopped for lack of evidence, coverage or
 * headroom) leaves room for the next attempt.
 */
export const ACTIVE_STATUSES: readonly FixStatus[] = [
  'DRAFT',
  'SCOPING',
  'PROPOSING',
  'PROPOSED',
  'GATING',
  'GATE_FAILED',
  'GATE_INCONCLUSIVE',
  'VERIFIED',
  'PR_OPEN',
  'APPLIED_LOCALLY',
  'HANDED_OFF',
  'SHIPPED',
  'CONFIRMING',
];

/** Statuses `dismiss` refuses (409). */
export const UNDISMISSABLE: readonly FixStatus[] = ['REJECTED', 'SUPERSEDED', 'ABANDONED', 'HELD'];

export interface GateArmScore {
  baseline: number;
  candidate: number;
  n: number;
}

export interface GateResult {
  repair: GateArmScore;
  holdout: GateArmScore & { wins: number; losses: number };
  noiseFloor: number;
  abstained: number;
  verdict: GateVerdict;
  reason: string;
}

export interface CandidateRef {
  promptVersionId: string;
  changelog?: string;
  risks?: string;
  contentSha256?: string;
}

export interface FixRef {
  prUrl: string;
  mergeCommit: string;
  promptVersionId: string;
  mergedAt: string;
}

export interface Fix {
  id: string;
  shortRef: string;
  tenantId: string;
  problemId: string;
  rubricVersion: number;
  attemptNo: number;
  fixType: FixType;
  status: FixStatus;
  statusReason: string;
  targetArtifactKey: string | null;
  targetSourcePath: string | null;
  routeConfidence: number | null;
  promptId: string | null;
  baselineVersionId: string | null;
  replaySetId: string | null;
  repairCaseIds: string[];
  holdoutCaseIds: string[];
  candidateRef: CandidateRef | null;
  gateRunId: string | null;
  controlRunId: string | null;
  gateResult: GateResult | null;
  deliveryChannel: DeliveryChannel | null;
  prUrl: string | null;
  prBranch: string | null;
  fixRef: FixRef | null;
  problemRank: number | null;
  createdAt: string;
  updatedAt: string;
}

/** What the KV record holds beyond the public object (never sent to clients). */
export interface StoredFix extends Fix {
  /** The route the draft asked for: `auto` (from evidence) or `prompt` (prompt route only). */
  requestedRoute: DraftRoute;
  /** An advance step in progress: who claimed it and when (optimistic claim, stale after a while). */
  claim: { id: string; at: string } | null;
  /** When the fix reached SHIPPED (start of the monitoring window). */
  shippedAt: string | null;
  /** Feedback rows this fix posted (merge notification, mark-applied, dismiss). */
  feedbackIds: string[];
  /** PR number at the code host, when delivered as a pull request. */
  prNumber: number | null;
  /** Problem lifecycle when the fix shipped (a problem already `reopened` then must reach monitoring before it can regress the fix). */
  lifecycleAtShip?: string;
}

const PRIVATE_KEYS = ['requestedRoute', 'claim', 'shippedAt', 'feedbackIds', 'prNumber', 'lifecycleAtShip'] as const;

/**
 * An UNROUTED fix as the spec has it: fix type UNROUTED and no target (null artifact, path,
 * confidence, prompt and baseline). Scoping writes it so; this also covers rows stored before.
 */
export function unroutedView<F extends Fix>(f: F): F {
  if (f.status !== 'UNROUTED' && f.fixType !== 'UNROUTED') return f;
  return { ...f, fixType: 'UNROUTED', targetArtifactKey: null, targetSourcePath: null, routeConfidence: null, promptId: null, baselineVersionId: null };
}

/** The public fix object (spec field list, in spec order). */
export function publicFix(f: StoredFix): Fix {
  const out: Record<string, unknown> = { ...unroutedView(f) };
  for (const k of PRIVATE_KEYS) delete out[k];
  return out as unknown as Fix;
}
