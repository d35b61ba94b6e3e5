/**
 * The dossier of a problem, written by templates from its evidence (no text is invented beyond the
 * template words and the neutralized quotes of the evidence).
 */
import { KIND_LABEL } from './text.js';
import { CAUSE_KINDS, PROBLEMS_ENGINE_VERSION, type Attribution, type Dossier, type ProblemMetrics, type ProblemState } from './types.js';

export function buildDossier(p: ProblemState, rows: readonly Attribution[], m: ProblemMetrics, nowIso: string): Dossier {
  const byKind = new Map<string, number>();
  for (const r of rows) byKind.set(r.signal_kind, (byKind.get(r.signal_kind) ?? 0) + r.dedup_count);
  const causes = [...byKind].filter(([k]) => CAUSE_KINDS.has(k as never));
  const effects = [...byKind].filter(([k]) => !CAUSE_KINDS.has(k as never));
  const chain = [
    ...causes.map(([k, n]) => ({ kind: k, description: `${KIND_LABEL[k] ?? k}: ${p.rubric.cause_statement}`, count: n })),
    ...effects.sort((a, b) => b[1] - a[1]).map(([k, n]) => ({ kind: k, description: `${KIND_LABEL[k] ?? k} following it`, count: n })),
  ].map((s, i) => ({ step: i + 1, ...s }));
  const surface = p.rubric.affected_surface;
  const suggestions: string[] = [];
  if (surface.startsWith('tool:')) {
    const tool = surface.slice(5);
    suggestions.push(`Compare the inputs the agent sends to ${tool} with the tool's schema and the error texts in the evidence.`);
    suggestions.push(`Check whether the tool description given to the model states the fields and formats ${tool} requires.`);
  } else if (surface === 'agent:instructions') {
    suggestions.push('Review the system prompt and instructions for wording that lets the agent stop before the work is done.');
    suggestions.push('Add an explicit completion check (run tests, show results) to the instructions.');
  } else if (surface === 'agent:claims') {
    suggestions.push('Compare the contradicted claims with the tool results just before them; look for a prompt that asks the agent to confirm success.');
  } else if (surface.startsWith('use_case:')) {
    suggestions.push('Read the conversations of this use case where the goal stalled: the first bad step of each segment marks the turn it went wrong.');
    suggestions.push('Check whether the agent has the tools and instructions this use case needs.');
  } else {
    suggestions.push('Read the representative stories and the failed calls before each signal.');
  }
  const stories = [...rows].sort((a, b) => b.confidence - a.confidence || (a.attribution_id < b.attribution_id ? -1 : 1)).slice(0, 3).map((r) => r.attribution_id);
  const limitations: string[] = [];
  if (m.affected_conversations < 10) limitations.push(`Evidence from ${m.affected_conversations} conversation(s) only.`);
  if (m.unknown_identity_conversations > 0) limitations.push(`${m.unknown_identity_conversations} affected conversation(s) carry no user identity.`);
  if (p.verification_status !== 'current') limitations.push(`Verification status is ${p.verification_status}: the attributions are not confirmed at the current definition.`);
  if (p.rubric.provisional) limitations.push('Provisional: the cause has not yet reached the support needed for a trusted problem.');
  limitations.push('Text written by templates from the evidence; quotes are user or tool text shown verbatim and untrusted.');
  const lifecycle = p.lifecycle === 'open' ? '' : ` It is ${p.lifecycle.replace('_', ' ')}.`;
  return {
    executive_summary: `${p.rubric.display_name}: ${p.rubric.cause_statement} ${m.signal_count} signal(s) in ${m.affected_conversations} conversation(s) of ${m.affected_users} known user(s)${m.abandonment_rate > 0 ? `, ${Math.round(m.abandonment_rate * 100)}% of them abandoned` : ''}.${lifecycle}`,
    causal_chain: chain,
    suggested_investigation: suggestions,
    representative_story_keys: stories,
    limitations,
    computed_at: nowIso,
    engine_version: PROBLEMS_ENGINE_VERSION,
    evidence_count: rows.length,
    text_source: 'template',
  };
}
