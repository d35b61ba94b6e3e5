/**
 * The replay-worker protocol (docs/fixes.md "Replay workers"): how gate, control and A/B runs
 * reach the user's own agent harness. Everything is plain JSON over NATS:
 *
 *   replay.work.<tenant>.<runId>                       work queue (JetStream REPLAY_WORK): one ReplayWorkItem per case × arm × seed
 *   replay.results.<tenant>.<runId>.<caseId>.<arm>.<seed>   one ReplayResult per item (JetStream REPLAY_RESULTS; the last per subject counts)
 *   replay.workers.ping                                 request/reply: every live worker answers ReplayWorkerHello
 *
 * A worker pulls from the durable consumer `replay-workers` (shared: several workers split the
 * queue), replays the case's scenario with the arm's prompt, publishes the result, then acks.
 * A crash before the ack redelivers the item; publishing the same result again is harmless.
 * An item the harness cannot replay (it failed on every attempt) is answered with outcome
 * `error`: the run then ends in status `error` instead of waiting for it forever.
 */
export const REPLAY_PROTOCOL = 'tracehouse.replay.v1';
export const REPLAY_WORK_STREAM = 'REPLAY_WORK';
export const REPLAY_RESULTS_STREAM = 'REPLAY_RESULTS';
export const REPLAY_WORKERS_CONSUMER = 'replay-workers';
export const REPLAY_PING_SUBJECT = 'replay.workers.ping';

export const workSubject = (tenant: string, runId: string) => `replay.work.${tenant}.${runId}`;
export const resultSubject = (tenant: string, runId: string, caseId: string, arm: string, seed: number) => `replay.results.${tenant}.${runId}.${caseId}.${arm}.${seed}`;
export const runResultsFilter = (tenant: string, runId: string) => `replay.results.${tenant}.${runId}.>`;

export type ReplayArm = 'baseline' | 'candidate';
/** `error`: the harness could not replay the item (the case counts as abstained, the run ends in `error`). */
export type ReplayOutcome = 'pass' | 'fail' | 'abstain' | 'error';

export interface ReplayCase {
  /** Token-safe id, unique in its set (`c001`…). */
  case_id: string;
  conversation_id: string;
  msg_index: number;
  /** The first user message of the conversation: what the replayed agent is asked. */
  scenario: string;
  /** Phrases a scripted agent needs in its prompt to handle the scenario (from the problem rubric). */
  checks: string[];
}

export interface ReplayWorkItem {
  protocol: typeof REPLAY_PROTOCOL;
  tenant: string;
  run_id: string;
  set_id: string;
  arm: ReplayArm;
  seed: number;
  prompt: { content: string; version_id: string };
  assistant_model: string;
  case: ReplayCase;
  result_subject: string;
}

export interface ReplayResult {
  protocol: typeof REPLAY_PROTOCOL;
  run_id: string;
  case_id: string;
  arm: ReplayArm;
  seed: number;
  outcome: ReplayOutcome;
  /** 0..1; pass = 1, fail = 0 unless the worker grades finer. */
  score: number;
  detail?: string;
  worker_id?: string;
}

export interface ReplayWorkerHello {
  protocol: typeof REPLAY_PROTOCOL;
  worker_id: string;
  kind: string;
}
