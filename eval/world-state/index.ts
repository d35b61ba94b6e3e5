/**
 * World-state evaluation on tau-bench's 200 airline trajectories against facts read from the raw
 * trajectories (truth.ts, RULES.md): the user id and every reservation id with the message that
 * established it, the options of state-changing calls in the state at their call, and thread
 * statuses against how each conversation ends. Baseline: "call arguments only" (a slot is known
 * where a call first uses it — what a tracker that ignores the person's words would record).
 */
import { foldUntil, emptyFoldState, type StateEvent } from '../../schemas/world-state.js';
import { analyzeSnapshot } from '../../stream/analyses/pipeline.js';
import { WORLD_STATE_VERSION } from '../../stream/analyses/world-state.js';
import { fmt } from '../lib/metrics.js';
import type { EvalModule, EvalSection, EvalTable } from '../lib/report.js';
import { loadTau, rawTau, type TauCase } from '../step-scores/tau.js';
import { truthOf, type Fact, type Truth } from './truth.js';

interface Counts {
  facts: number;
  found: number;
  provenance: number;
  baseline: number;
}

const zero = (): Counts => ({ facts: 0, found: 0, provenance: 0, baseline: 0 });

/** The first event that gave the slot this value. */
const setting = (events: readonly StateEvent[], f: Fact) => events.find((e) => e.slotKey === f.key && e.newValue === f.value && e.eventType !== 'slot_expire');

/** Where a call-arguments-only tracker would place the fact: the first call using the value. */
function firstCallUse(raw: ReadonlyArray<{ role: string; tool_calls?: Array<{ function: { arguments: string } }> }>, value: string): number {
  return raw.findIndex((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.function.arguments.includes(value)));
}

function score(c: Counts, events: readonly StateEvent[], raw: Parameters<typeof firstCallUse>[0], f: Fact): void {
  c.facts++;
  const e = setting(events, f);
  if (e) c.found++;
  if (e && e.provenance.msgIndex === f.msgIndex) c.provenance++;
  if (firstCallUse(raw, f.value) === f.msgIndex) c.baseline++;
}

export const worldStateEval: EvalModule = {
  name: 'world-state',
  run(): EvalSection {
    const cases = loadTau();
    const raws = rawTau();
    if (!cases || !raws) return { name: 'world-state', title: 'World state', tables: [], notes: ['tau-bench data is missing: nothing evaluated.'], figures: {} };
    const byKey = new Map(raws.map((r) => [`${r.task_id}:${r.trial}`, r]));
    const sets = { dev: { user: zero(), reservation: zero(), options: zero() }, heldout: { user: zero(), reservation: zero(), options: zero() } };
    const threads = { thanksResolved: 0, thanks: 0, handoffOpen: 0, handoffs: 0, statuses: new Map<string, number>() };
    for (const c of cases as TauCase[]) {
      const raw = byKey.get(`${c.taskId}:${c.trial}`)!.traj as unknown as Parameters<typeof truthOf>[0];
      const truth: Truth = truthOf(raw);
      const ws = analyzeSnapshot(c.snapshot).analysis.world_state!;
      const s = sets[c.split];
      if (truth.userId) score(s.user, ws.events, raw, truth.userId);
      for (const r of truth.reservations) score(s.reservation, ws.events, raw, r);
      for (const o of truth.options) {
        s.options.facts++;
        const state = foldUntil(emptyFoldState(), ws.events, o.msgIndex, Number.MAX_SAFE_INTEGER);
        if (state.slots[o.key]?.value === o.value) s.options.found++;
        const e = setting(ws.events, o);
        if (e && e.provenance.msgIndex <= o.msgIndex) s.options.provenance++;
      }
      const all = ws.segments.flatMap((g) => g.openThreads);
      const last = new Map(all.map((t) => [t.id, t.status]));
      for (const st of last.values()) threads.statuses.set(st, (threads.statuses.get(st) ?? 0) + 1);
      const finalStatus = [...last.values()].pop();
      if (truth.endsWithThanks && !truth.handedOff) {
        threads.thanks++;
        if (finalStatus === 'resolved') threads.thanksResolved++;
      }
      if (truth.handedOff) {
        threads.handoffs++;
        if (finalStatus === 'open') threads.handoffOpen++;
      }
    }
    const table: EvalTable = {
      title: `Slots against the raw trajectories (WORLD_STATE_VERSION ${WORLD_STATE_VERSION})`,
      columns: ['set', 'fact', 'facts', 'value found', 'provenance right', 'baseline: call arguments only, provenance right'],
      rows: [],
    };
    for (const split of ['dev', 'heldout'] as const) {
      const label = split === 'dev' ? 'dev (tasks 0–24)' : 'held-out (tasks 25–49)';
      const s = sets[split];
      table.rows.push([label, 'user id', s.user.facts, s.user.found / s.user.facts, s.user.provenance / s.user.facts, s.user.baseline / s.user.facts]);
      table.rows.push([label, 'reservation ids', s.reservation.facts, s.reservation.found / s.reservation.facts, s.reservation.provenance / s.reservation.facts, s.reservation.baseline / s.reservation.facts]);
      // options are call arguments: the baseline records them at their call by definition
      table.rows.push([label, 'options of state-changing calls (in the state at the call / set at or before it)', s.options.facts, s.options.found / s.options.facts, s.options.provenance / s.options.facts, 'n/a']);
    }
    const held = sets.heldout;
    const notes = [
      `Threads: final statuses ${[...threads.statuses].map(([k, v]) => `${k} ${v}`).join(', ')}. Of ${threads.thanks} conversations whose last person turn thanks or closes (no hand-off), ${threads.thanksResolved} end with the last thread resolved (${fmt(threads.thanksResolved / threads.thanks)}); of ${threads.handoffs} handed to a person, ${threads.handoffOpen} end with it open.`,
      'Provenance right: the provenance of the first state event giving the slot that value names the message where the raw trajectory first establishes it (RULES.md). The baseline places each fact at the first call that uses it, as a tracker of call arguments alone would.',
    ];
    return {
      name: 'world-state',
      title: 'World state',
      tables: [table],
      notes,
      figures: {
        user_id_provenance_heldout: held.user.provenance / held.user.facts,
        reservation_found_heldout: held.reservation.found / held.reservation.facts,
        reservation_provenance_heldout: held.reservation.provenance / held.reservation.facts,
        options_in_state_heldout: held.options.found / held.options.facts,
        thanks_resolved: threads.thanksResolved / threads.thanks,
      },
    };
  },
};
