/**
 * World state on all 200 real tau-bench trajectories, checked against facts read from the raw
 * trajectory file without any of the analysis code (eval/world-state/truth.ts, rules in
 * eval/world-state/RULES.md): the user id and every reservation id are slots whose provenance
 * names the message that first established them; the options of every state-changing call are
 * in the state at that call.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyFoldState, foldUntil } from '../../../schemas/world-state.js';
import { analyzeSnapshot } from '../../../stream/analyses/pipeline.js';
import { loadTau, rawTau } from '../../../eval/step-scores/tau.js';
import { truthOf } from '../../../eval/world-state/truth.js';

test('user id, reservation ids and chosen options with provenance at the right messages, on every trajectory', () => {
  const cases = loadTau()!;
  const raws = new Map(rawTau()!.map((r) => [`${r.task_id}:${r.trial}`, r.traj]));
  assert.is(cases.length, 200);
  let facts = 0;
  for (const c of cases) {
    const truth = truthOf(raws.get(`${c.taskId}:${c.trial}`)! as unknown as Parameters<typeof truthOf>[0]);
    const ws = analyzeSnapshot(c.snapshot).analysis.world_state!;
    const where = `task ${c.taskId} trial ${c.trial}`;
    for (const f of [truth.userId, ...truth.reservations].filter((x) => x !== null)) {
      const e = ws.events.find((x) => x.slotKey === f.key && x.newValue === f.value && x.eventType !== 'slot_expire');
      assert.ok(e, `${where}: ${f.key} ${f.value} is a slot`);
      assert.is(e!.provenance.msgIndex, f.msgIndex, `${where}: ${f.key} ${f.value} established at message ${f.msgIndex}`);
      facts++;
    }
    for (const o of truth.options) {
      const state = foldUntil(emptyFoldState(), ws.events, o.msgIndex, Number.MAX_SAFE_INTEGER);
      assert.is(state.slots[o.key]?.value, o.value, `${where}: option ${o.key} at message ${o.msgIndex}`);
      facts++;
    }
  }
  assert.ok(facts > 900, `${facts} facts checked`);
});

test.run();
