/**
 * The gate's end (spec: `completed`, `skipped` and `error` end a run; once both runs finished the
 * verdict rules decide): a run that errored or was skipped ends the gate on a verdict (cases
 * without usable results abstain), never leaving the fix in GATING; runs in flight keep it there.
 * Replay results with outcome `error` end a run in `error`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gateOutcome } from '../../../fixes/gating.js';
import { finishedRun, runEnded, type CaseScore, type RunStatus } from '../../../fixes/replay.js';
import type { ReplayResult } from '../../../fixes/replay-protocol.js';
import type { StoredFix } from '../../../fixes/types.js';

const REPAIR = ['c1', 'c2', 'c3', 'c4'];
const HOLDOUT = ['c5', 'c6', 'c7', 'c8'];
const fix = { holdoutCaseIds: HOLDOUT, repairCaseIds: REPAIR } as unknown as StoredFix;

const score = (caseId: string, baseline: number, candidate: number): CaseScore => ({ caseId, baseline, candidate, abstained: false });
const run = (kind: RunStatus['kind'], status: RunStatus['status'], cases: CaseScore[], extra: Partial<RunStatus> = {}): RunStatus => ({
  runId: `${kind}-run`,
  setId: 'set',
  kind,
  status,
  expected: cases.length * 2,
  received: status === 'queued' ? 0 : cases.length * 2,
  cases,
  ...extra,
});
/** The candidate wins every case; the control's two arms agree everywhere. */
const winningGate = (status: RunStatus['status'] = 'completed') => run('gate', status, [...REPAIR, ...HOLDOUT].map((id) => score(id, 0, 1)));
const quietControl = (status: RunStatus['status'] = 'completed') => run('control', status, HOLDOUT.map((id) => score(id, 0, 0)));

test('completed, skipped and error end a run; queued and running are in flight', () => {
  assert.equal((['queued', 'running', 'completed', 'skipped', 'error'] as const).map(runEnded), [false, false, true, true, true]);
});

test('both runs completed: the verdict as before (a holdout sweep passes → VERIFIED)', () => {
  const o = gateOutcome(fix, winningGate(), quietControl());
  assert.is(o.status, 'VERIFIED', o.statusReason);
  assert.is(o.gateResult!.verdict, 'pass');
  assert.is(o.gateResult!.holdout.wins, 4);
});

test('a run still in flight keeps the fix GATING with progress and no verdict', () => {
  const o = gateOutcome(fix, run('gate', 'running', [], { expected: 16, received: 5 }), quietControl());
  assert.is(o.status, 'GATING');
  assert.is(o.statusReason, 'gate 5/16 results, control 8/8');
  assert.is(o.gateResult, undefined);
});

test('a gate run that ended in error without results → GATE_INCONCLUSIVE (every holdout case abstained), with the run error in the reason', () => {
  const o = gateOutcome(fix, run('gate', 'error', [], { expected: 16, received: 16, error: '16 of 16 replays could not run (c1 baseline: harness down)' }), quietControl());
  assert.is(o.status, 'GATE_INCONCLUSIVE', o.statusReason);
  assert.is(o.gateResult!.verdict, 'inconclusive');
  assert.is(o.gateResult!.abstained, 4);
  assert.match(o.statusReason, /gate run error: 16 of 16 replays could not run/);
  assert.match(o.gateResult!.reason, /gate run error/);
});

test('a skipped gate run (no cases replayed) ends the gate: GATE_INCONCLUSIVE, never GATING', () => {
  const o = gateOutcome(fix, run('gate', 'skipped', [], { expected: 0, received: 0 }), quietControl());
  assert.is(o.status, 'GATE_INCONCLUSIVE', o.statusReason);
  assert.match(o.statusReason, /gate run skipped/);
});

test('a control run that errored leaves the noise unmeasured: a full sweep of wins does not pass', () => {
  const o = gateOutcome(fix, winningGate(), run('control', 'error', [], { expected: 8, received: 8, error: 'harness down' }));
  assert.is(o.status, 'GATE_INCONCLUSIVE', o.statusReason);
  assert.is(o.gateResult!.abstained, 4);
  assert.match(o.statusReason, /control run error: harness down/);
});

test('an errored case among measured ones abstains; the others still decide (pass needs ≤ 30% abstained)', () => {
  const holdout = [score('c5', 0, 1), score('c6', 0, 1), score('c7', 0, 1), { caseId: 'c8', baseline: null, candidate: null, abstained: true }];
  const big = { holdoutCaseIds: [...HOLDOUT, 'c9', 'c10', 'c11', 'c12', 'c13', 'c14'], repairCaseIds: REPAIR } as unknown as StoredFix;
  const more = ['c9', 'c10', 'c11', 'c12', 'c13', 'c14'].map((id) => score(id, 0, 1));
  const gate = run('gate', 'error', [...REPAIR.map((id) => score(id, 0, 1)), ...holdout, ...more], { error: '1 of 28 replays could not run' });
  const control = run('control', 'completed', big.holdoutCaseIds.map((id) => score(id, 0, 0)));
  const o = gateOutcome(big, gate, control);
  assert.is(o.gateResult!.abstained, 1);
  assert.is(o.status, 'VERIFIED', o.statusReason);
});

const result = (case_id: string, arm: 'baseline' | 'candidate', outcome: ReplayResult['outcome']): ReplayResult => ({ protocol: 'tracehouse.replay.v1', run_id: 'r', case_id, arm, seed: 0, outcome, score: outcome === 'pass' ? 1 : 0, detail: outcome === 'error' ? 'harness crashed' : 'ok' });

test('replay results: an `error` outcome ends the run in `error` and its case abstains; without one the run is completed', () => {
  const ok = finishedRun(['a', 'b'], [result('a', 'baseline', 'fail'), result('a', 'candidate', 'pass'), result('b', 'baseline', 'fail'), result('b', 'candidate', 'pass')]);
  assert.is(ok.status, 'completed');
  assert.is(ok.error, undefined);
  const bad = finishedRun(['a', 'b'], [result('a', 'baseline', 'fail'), result('a', 'candidate', 'pass'), result('b', 'baseline', 'error'), result('b', 'candidate', 'pass')]);
  assert.is(bad.status, 'error');
  assert.match(bad.error!, /1 of 4 replays could not run \(b baseline: harness crashed\)/);
  assert.equal(bad.cases.map((c) => [c.caseId, c.abstained]), [['a', false], ['b', true]]);
});

test.run();
