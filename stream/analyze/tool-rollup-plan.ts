/**
 * The pure step of the tool-failure rollup (tool-failures.ts): which calls' facts changed since they
 * were last written. Runs in the analysis worker, so this module imports no I/O (a worker that
 * loaded the embedded engine would share, and on exit tear down, the process's engine state).
 */

export interface CallFact {
  tenant_id: string;
  conversation_id: string;
  call_id: string;
  tool_name: string;
  failed: number;
  day: string;
  environment: string;
  effect_class: string;
  ts: string;
  error: string;
  error_type: string;
  category_id: string;
}

const FIELDS = ['tool_name', 'failed', 'day', 'environment', 'effect_class', 'ts', 'error', 'error_type', 'category_id'] as const;
const callKey = (f: CallFact) => `${f.tenant_id}\u0000${f.conversation_id}\u0000${f.call_id}`;
/** The fact table's key beyond the call: a change here moves the row. */
const factKey = (f: CallFact) => `${f.tool_name}\u0000${Number(f.failed)}\u0000${f.day}`;
const same = (a: CallFact, b: CallFact) => FIELDS.every((k) => String(a[k]) === String(b[k]));

/** Pure: the writes that bring the stored state of some calls to their current fold. */
export function planToolRollup(current: readonly CallFact[], previous: readonly CallFact[]) {
  const before = new Map(previous.map((p) => [callKey(p), p]));
  const changed: CallFact[] = [];
  const tombstones: CallFact[] = [];
  const groups = new Map<string, [string, string, string]>();
  const touch = (f: CallFact) => groups.set(`${f.tenant_id}\u0000${f.tool_name}\u0000${f.day}`, [f.tenant_id, f.tool_name, f.day]);
  for (const c of current) {
    const p = before.get(callKey(c));
    if (p && same(p, c)) continue;
    changed.push(c);
    touch(c);
    if (p) {
      touch(p);
      if (factKey(p) !== factKey(c)) tombstones.push(p);
    }
  }
  return { changed, tombstones, groups: [...groups.values()] };
}
