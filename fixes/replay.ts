/**
 * Replay sets (frozen evaluation cases) and runs (baseline vs candidate over a set), executed by
 * replay workers over NATS (fixes/replay-protocol.ts). Nothing runs in the background: enqueueing
 * publishes the work items, and reading a run folds the results published so far.
 * KV keys (bucket th_fixes): rset.<tenant>.<setId>, rrun.<tenant>.<runId>, rlast.<tenant>.<setId>.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '../core/nats.js';
import { NotFoundError } from '../core/errors.js';
import { replayUnavailable } from './errors.js';
import type { JsonKv } from './kv-json.js';
import {
  REPLAY_PING_SUBJECT,
  REPLAY_PROTOCOL,
  REPLAY_RESULTS_STREAM,
  resultSubject,
  runResultsFilter,
  workSubject,
  type ReplayArm,
  type ReplayCase,
  type ReplayResult,
  type ReplayWorkItem,
} from './replay-protocol.js';

export interface ReplaySet {
  setId: string;
  name: string;
  cases: ReplayCase[];
  createdAt: string;
  source: 'fix' | 'conversations' | 'auto';
}

export interface ReplayRun {
  runId: string;
  setId: string;
  kind: 'gate' | 'control' | 'ab';
  caseIds: string[];
  seeds: number;
  assistantModel: string;
  arms: Record<ReplayArm, { content: string; versionId: string }>;
  createdAt: string;
}

export interface CaseScore {
  caseId: string;
  baseline: number | null;
  candidate: number | null;
  abstained: boolean;
}

export type RunState = 'queued' | 'running' | 'completed' | 'skipped' | 'error';

/** spec: `completed`, `skipped` (a run with no cases) and `error` (a replay could not run) end a run. */
export const RUN_ENDED: readonly RunState[] = ['completed', 'skipped', 'error'];
export const runEnded = (s: RunState): boolean => RUN_ENDED.includes(s);

export interface RunStatus {
  runId: string;
  setId: string;
  kind: ReplayRun['kind'];
  /** See RUN_ENDED; `queued` and `running` are in flight. */
  status: RunState;
  expected: number;
  received: number;
  cases: CaseScore[];
  /** Why a run ended in `error`. */
  error?: string;
}

export interface ReplayService {
  createSet(tenant: string, input: { name: string; cases: ReplayCase[]; source: ReplaySet['source'] }): Promise<ReplaySet>;
  getSet(tenant: string, setId: string): Promise<ReplaySet | undefined>;
  /** Throws 503 when no replay worker answers the ping. */
  requireWorker(): Promise<void>;
  startRun(tenant: string, input: Omit<ReplayRun, 'runId' | 'createdAt'>): Promise<ReplayRun>;
  getRun(tenant: string, runId: string): Promise<ReplayRun | undefined>;
  latestRunId(tenant: string, setId: string): Promise<string | undefined>;
  status(tenant: string, runId: string): Promise<RunStatus>;
}

const ID = /^[A-Za-z0-9-]{1,64}$/;

export function createReplayService(bus: Bus, kv: JsonKv, now: () => number, opts: { pingTimeoutMs?: number } = {}): ReplayService {
  const iso = () => new Date(now()).toISOString();
  const svc: ReplayService = {
    async createSet(tenant, input) {
      const set: ReplaySet = { setId: randomUUID(), name: input.name, cases: input.cases, createdAt: iso(), source: input.source };
      await kv.put(`rset.${tenant}.${set.setId}`, set);
      return set;
    },
    getSet: (tenant, setId) => (ID.test(setId) ? kv.get<ReplaySet>(`rset.${tenant}.${setId}`) : Promise.resolve(undefined)),
    async requireWorker() {
      try {
        await bus.nc.request(REPLAY_PING_SUBJECT, JSON.stringify({ protocol: REPLAY_PROTOCOL }), { timeout: opts.pingTimeoutMs ?? 1500 });
      } catch (err) {
        throw Object.assign(replayUnavailable(), { cause: err });
      }
    },
    async startRun(tenant, input) {
      const set = await svc.getSet(tenant, input.setId);
      if (!set) throw new NotFoundError(`no replay set ${input.setId}`);
      const run: ReplayRun = { ...input, runId: randomUUID(), createdAt: iso() };
      await kv.put(`rrun.${tenant}.${run.runId}`, run);
      await kv.put(`rlast.${tenant}.${run.setId}`, { runId: run.runId });
      const byId = new Map(set.cases.map((c) => [c.case_id, c]));
      const subject = workSubject(tenant, run.runId);
      for (const caseId of run.caseIds) {
        const c = byId.get(caseId);
        if (!c) continue;
        for (const arm of ['baseline', 'candidate'] as const) {
          for (let seed = 0; seed < run.seeds; seed++) {
            const item: ReplayWorkItem = {
              protocol: REPLAY_PROTOCOL,
              tenant,
              run_id: run.runId,
              set_id: run.setId,
              arm,
              seed,
              prompt: { content: run.arms[arm].content, version_id: run.arms[arm].versionId },
              assistant_model: run.assistantModel,
              case: c,
              result_subject: resultSubject(tenant, run.runId, caseId, arm, seed),
            };
            await bus.js.publish(subject, JSON.stringify(item), { msgID: item.result_subject });
          }
        }
      }
      return run;
    },
    getRun: (tenant, runId) => (ID.test(runId) ? kv.get<ReplayRun>(`rrun.${tenant}.${runId}`) : Promise.resolve(undefined)),
    async latestRunId(tenant, setId) {
      return (await kv.get<{ runId: string }>(`rlast.${tenant}.${setId}`))?.runId;
    },
    async status(tenant, runId) {
      const run = await svc.getRun(tenant, runId);
      if (!run) throw new NotFoundError(`no replay run ${runId}`);
      const expected = run.caseIds.length * 2 * run.seeds;
      const info = await bus.jsm.streams.info(REPLAY_RESULTS_STREAM, { subjects_filter: runResultsFilter(tenant, runId) });
      const subjects = Object.keys(info.state.subjects ?? {});
      const received = subjects.length;
      const base = { runId, setId: run.setId, kind: run.kind, expected, received };
      if (expected === 0) return { ...base, status: 'skipped', cases: [] };
      if (received < expected) return { ...base, status: received ? 'running' : 'queued', cases: [] };
      const results: ReplayResult[] = [];
      for (const s of subjects) {
        const m = await bus.jsm.streams.getMessage(REPLAY_RESULTS_STREAM, { last_by_subj: s });
        if (m) results.push(m.json<ReplayResult>());
      }
      return { ...base, ...finishedRun(run.caseIds, results) };
    },
  };
  return svc;
}

/** A run whose every result is in: `completed`, or `error` when a replay could not run (its case abstains). */
export function finishedRun(caseIds: string[], results: ReplayResult[]): Pick<RunStatus, 'status' | 'cases' | 'error'> {
  const cases = foldCases(caseIds, results);
  const failed = results.filter((r) => r.outcome === 'error');
  if (!failed.length) return { status: 'completed', cases };
  const detail = (failed[0]!.detail ?? 'no detail').slice(0, 300);
  return { status: 'error', cases, error: `${failed.length} of ${results.length} replays could not run (${failed[0]!.case_id} ${failed[0]!.arm}: ${detail})` };
}

/**
 * Per case and arm: the mean score over seeds; a case abstains when any of its results abstained
 * or errored (the harness could not replay it), so it counts for neither arm.
 */
export function foldCases(caseIds: string[], results: ReplayResult[]): CaseScore[] {
  return caseIds.map((caseId) => {
    const mine = results.filter((r) => r.case_id === caseId);
    const abstained = mine.some((r) => r.outcome === 'abstain' || r.outcome === 'error');
    const mean = (arm: ReplayArm) => {
      const xs = mine.filter((r) => r.arm === arm);
      return xs.length ? xs.reduce((a, r) => a + (r.outcome === 'pass' ? Math.max(0, Math.min(1, r.score ?? 1)) : 0), 0) / xs.length : null;
    };
    return { caseId, baseline: abstained ? null : mean('baseline'), candidate: abstained ? null : mean('candidate'), abstained };
  });
}
