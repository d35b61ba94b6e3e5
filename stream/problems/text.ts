/**
 * Text helpers of the problems engine: deterministic ids, quoted evidence neutralized as untrusted
 * text, and the templates that write names, statements and narratives from the evidence.
 */
import { createHash } from 'node:crypto';
import type { Door, Signal, SnippetParsed } from './types.js';

/** A UUID-shaped id derived from its parts (same parts, same id). */
export function uuidFrom(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = (8 | (parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A stable number in [0, 1) from a string (deterministic sampling). */
export function unitHash(s: string): number {
  return parseInt(createHash('sha256').update(s).digest('hex').slice(0, 8), 16) / 0x1_0000_0000;
}

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * Quoted conversation text made inert for display: control, zero-width and bidirectional-override
 * characters removed, markup brackets and backticks replaced, whitespace collapsed, cut at `max`
 * characters on a word boundary. The result is data, never an instruction to anyone reading it.
 */
export function neutralize(text: string, max = 240): string {
  let t = text.replace(CONTROL, ' ').replace(/[<>]/g, (c) => (c === '<' ? '‹' : '›')).replace(/`/g, "'").replace(/\s+/g, ' ').trim();
  if (t.length > max) {
    const cut = t.slice(0, max);
    const sp = cut.lastIndexOf(' ');
    t = `${sp > max * 0.6 ? cut.slice(0, sp) : cut}…`;
  }
  return t;
}

export const KIND_LABEL: Record<string, string> = {
  tool_failure: 'failed tool call',
  laziness: 'incomplete work presented as done',
  hallucination: 'claim contradicted by the record',
  emotion: 'negative user reaction',
  step_score: 'low step score',
  abandonment: 'user left frustrated',
};

export function mechanismOf(s: Pick<Signal, 'kind' | 'family' | 'type' | 'tool_name'>): string {
  switch (s.kind) {
    case 'tool_failure':
      return `calls to ${s.tool_name ?? 'a tool'} fail (${s.family})`;
    case 'laziness':
      return `the agent ${s.type.replace(/_/g, ' ')}`;
    case 'hallucination':
      return `the agent's ${s.type.replace(/_/g, ' ')} claim is contradicted by the record`;
    default:
      return KIND_LABEL[s.kind] ?? s.kind;
  }
}

/** The evidence line of an attribution and its parsed form. */
export function snippetOf(s: Signal, door: Door, families: string[], mechanism: string): { text: string; parsed: SnippetParsed } {
  const excerpt = neutralize(s.text);
  const anchor = `${s.conversation_id}#${s.msg_index}`;
  const parsed: SnippetParsed = { excerpt, families, line: s.msg_index, anchor, door, mechanism };
  return { text: `[${families.join(',')}] ${anchor} (${door}): "${excerpt}"`, parsed };
}

export interface CauseTemplate {
  display_name: string;
  cause_statement: string;
  display_description: string;
  affected_surface: string;
  scope_hints: string[];
}

/** Name, statement and description of a problem discovered from a group of cause signals. */
export function describeCause(kind: string, family: string, key: { tool_name?: string; type?: string; cluster_label?: string }, group: readonly Signal[]): CauseTemplate {
  const convs = new Set(group.map((s) => s.conversation_id)).size;
  const example = group.find((s) => s.text.trim())?.text ?? '';
  const ex = example ? ` Example: "${neutralize(example, 160)}".` : '';
  if (kind === 'tool_failure') {
    const tool = key.tool_name ?? 'a tool';
    const labels = topOf(group.map((s) => s.type).filter(Boolean));
    const cause = topOf(group.map((s) => s.detail ?? '').filter(Boolean))[0];
    return {
      display_name: `${tool}: ${family.replace(/_/g, ' ')} failures`,
      cause_statement: `Calls to ${tool} fail with ${family.replace(/_/g, ' ')}${cause ? ` (${neutralize(cause, 120)})` : ''}.`,
      display_description: `${group.length} failed calls of ${tool} in ${convs} conversations${labels[0] ? `, mostly "${neutralize(labels[0], 100)}"` : ''}.${ex}`,
      affected_surface: `tool:${tool}`,
      scope_hints: [`tool_name=${tool}`, `failure_family=${family}`],
    };
  }
  if (kind === 'laziness') {
    const patterns = topOf(group.map((s) => s.type));
    return {
      display_name: `Agent leaves work incomplete (${patterns.slice(0, 2).map((p) => p.replace(/_/g, ' ')).join(', ')})`,
      cause_statement: `The agent presents incomplete work as done or hands it back to the person (${patterns.map((p) => p.replace(/_/g, ' ')).join(', ')}).`,
      display_description: `${group.length} detections in ${convs} conversations.${ex}`,
      affected_surface: 'agent:instructions',
      scope_hints: patterns.map((p) => `laziness_pattern=${p}`),
    };
  }
  if (kind === 'step_score') {
    const useCase = neutralize(key.cluster_label || 'one use case', 60);
    const how = (key.type ?? 'no_progress').replace(/_/g, ' ');
    return {
      display_name: `${useCase}: goals stall (${how})`,
      cause_statement: `Conversations about "${useCase}" lose progress (${how}) with no failed call, contradicted claim or lazy step recorded before it.`,
      display_description: `${group.length} failed segments in ${convs} conversations.${ex}`,
      affected_surface: `use_case:${useCase}`,
      scope_hints: [`use_case=${useCase}`, `failure_type=${key.type ?? ''}`],
    };
  }
  const claim = key.type ?? family;
  return {
    display_name: `Agent ${claim.replace(/_/g, ' ')} claims contradicted${key.tool_name ? ` by ${key.tool_name}` : ''}`,
    cause_statement: `The agent asserts ${claim.replace(/_/g, ' ')} facts that the recorded tool results contradict${key.tool_name ? ` (checked against ${key.tool_name})` : ''}.`,
    display_description: `${group.length} contradicted claims in ${convs} conversations.${ex}`,
    affected_surface: key.tool_name ? `tool:${key.tool_name}` : 'agent:claims',
    scope_hints: [`claim_type=${claim}`],
  };
}

/** Values by descending frequency (ties by value). */
export function topOf(values: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
}
