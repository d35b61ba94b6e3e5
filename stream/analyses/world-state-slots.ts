/**
 * Facts for the world state's slots, each with where it was stated: the arguments of the agent's
 * calls (identifiers of any call; every scalar option of a state-changing call —
 * the options actually chosen), and what calls return (the ids a state-changing call created; the
 * profile fields a lookup by the user's own id returned). What the person says is read by
 * world-state-speech.ts. Rules are structural and generic: argument names and phrasing, never a
 * product's vocabulary. docs/analyses.md "World state".
 */
import type { SlotProvenance } from '../../schemas/world-state.js';
import type { SnapshotToolCall } from './types.js';

export interface Fact {
  key: string;
  value: string;
  durable: boolean;
  provenance: SlotProvenance;
}

/** Longest value kept in a slot (longer ones are content, not facts). */
const MAX_VALUE_CHARS = 120;
/** Longest option value of a state-changing call. */
const MAX_OPTION_CHARS = 80;

const ALIASES: Readonly<Record<string, string>> = {
  file: 'file_path', filename: 'file_path', filepath: 'file_path', notebook_path: 'file_path', target_file: 'file_path',
  workdir: 'cwd', working_directory: 'cwd', working_dir: 'cwd',
  phone_number: 'phone', mobile: 'phone', mobile_number: 'phone', telephone: 'phone',
  zip_code: 'zip', postal_code: 'zip', postcode: 'zip',
  email_address: 'email', mail: 'email',
  user_name: 'username', login: 'username', date_of_birth: 'dob', birthday: 'dob', fullname: 'full_name',
};

const keyCache = new Map<string, string>();
/** Names seen are few (a tool's argument names); the cache is cleared when it grows past this. */
const KEY_CACHE_MAX = 4096;

/** Slot key of an argument or field name: snake_case, `…_number`/`…_no` read as `…_id`, aliases folded. */
export function canonicalKey(name: string): string {
  let k = keyCache.get(name);
  if (k !== undefined) return k;
  k = computeKey(name);
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
  keyCache.set(name, k);
  return k;
}

function computeKey(name: string): string {
  let k = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  k = ALIASES[k] ?? k;
  if (/_(?:number|num|no|nr)$/.test(k) && !/^(?:phone|zip|house|street|card)_/.test(k)) k = k.replace(/_(?:number|num|no|nr)$/, '_id');
  if (/^[a-z]+id$/.test(k) && k.length > 3) k = k.slice(0, -2) + '_id'; // userid → user_id
  return k;
}

const DURABLE = /^(?:(?:user|account|customer|member|client|profile|membership|loyalty)_id|username|name|full_name|first_name|last_name|email|phone|dob|membership|membership_tier|membership_level|language|preferred_language|locale|timezone|time_zone|zip|os|shell|editor|cwd)$/;

/** Facts about the user (carried to later conversations) rather than about the current task. */
export const isDurableKey = (key: string): boolean => DURABLE.test(key);

/** Argument names whose values are identifiers worth keeping from any call. */
const ID_KEY = /(?:_id|_ids)$|^(?:email|phone|username|file_path|path|url|cwd|branch|repo|repository|zip)$/;
/** Free text, code and content: never a slot. */
const FREE_TEXT = /^(?:content|contents|text|body|message|messages|new_string|old_string|new_str|old_str|new_source|command|cmd|args|arguments|prompt|description|code|patch|diff|summary|note|notes|thought|thoughts|query|pattern|regex|input|old|new|replacement|edits|comment|expression|script|data|html|markdown|instructions|active_form)$/;

const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const scalarText = (v: string | number | boolean) => (typeof v === 'string' ? v.trim() : String(v));
const singular = (k: string) => k.replace(/ies$/, 'y').replace(/(?<!s)s$/, '');

const objectCache = new Map<string, string>();

/** The object a tool acts on, from its name: `cancel_reservation` → `reservation`, `getOrderDetails` → `order`. */
export function toolObject(toolName: string): string {
  let object = objectCache.get(toolName);
  if (object === undefined) {
    object = objectOf(toolName);
    if (objectCache.size >= KEY_CACHE_MAX) objectCache.clear();
    objectCache.set(toolName, object);
  }
  return object;
}

function objectOf(toolName: string): string {
  const parts = canonicalKey(toolName).split('_').filter(Boolean);
  while (parts.length > 1 && /^(?:get|list|find|search|fetch|read|lookup|show|view|cancel|update|modify|create|delete|remove|add|set|book|change|edit|check|make|send|put|post|patch)$/.test(parts[0]!)) parts.shift();
  while (parts.length > 1 && /^(?:details?|info|information|by|status|data|record)$/.test(parts[parts.length - 1]!)) parts.pop();
  const object = parts.join('_');
  return /^(?:get|list|find|search|fetch|read|cancel|update|create|delete|send)$/.test(object) ? '' : singular(object);
}

/**
 * Flattened scalar fields of a JSON object: top-level scalars, scalar arrays joined by ",", and one
 * level of nested objects and arrays of objects (`flights[].flight_number` → `flight_id`,
 * `flights[].date` → `flight_date`, `name.first_name` → `first_name`).
 */
export function flatFields(obj: Record<string, unknown>): Array<[string, string]> {
  const out = new Map<string, string[]>();
  const add = (key: string, v: string | number | boolean) => {
    const text = scalarText(v);
    if (text === '') return;
    const list = out.get(key) ?? [];
    if (!list.includes(text)) list.push(text);
    out.set(key, list);
  };
  // a nested object describes its parent (name.first_name is a name); an array lists other items
  // (passengers[].first_name is a passenger's, not the user's): only their ids keep their own key
  const nestedKey = (parent: string, field: string, listItem: boolean) => {
    const f = canonicalKey(field);
    const p = singular(canonicalKey(parent));
    const own = listItem ? /_id$/.test(f) : ID_KEY.test(f) || isDurableKey(f);
    return own || f.startsWith(p + '_') ? f : `${p}_${f}`;
  };
  for (const [k, v] of Object.entries(obj)) {
    const key = canonicalKey(k);
    if (FREE_TEXT.test(key)) continue;
    if (isScalar(v)) add(key, v);
    else if (Array.isArray(v)) {
      for (const item of v) {
        if (isScalar(item)) add(key, item);
        else if (item && typeof item === 'object' && !Array.isArray(item)) {
          for (const [f, fv] of Object.entries(item)) if (isScalar(fv) && !FREE_TEXT.test(canonicalKey(f))) add(nestedKey(k, f, true), fv);
        }
      }
    } else if (v && typeof v === 'object') {
      for (const [f, fv] of Object.entries(v)) if (isScalar(fv) && !FREE_TEXT.test(canonicalKey(f))) add(nestedKey(k, f, false), fv);
    }
  }
  return [...out].map(([k, vs]) => [k, vs.join(',')]);
}

function parseObject(text: string): Record<string, unknown> | null {
  const t = text.trim();
  if (!t.startsWith('{')) return null;
  try {
    const v = JSON.parse(t);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null; // capped or not JSON: no structured facts
  }
}

/** The agent's own bookkeeping (todo lists, plans, notes): it changes nothing outside the agent. */
const BOOKKEEPING = /todo|task_?list|scratch_?pad|^(?:update_?)?plans?$|^notes?$|^think$/i;
export const isBookkeeping = (c: SnapshotToolCall): boolean => BOOKKEEPING.test(c.toolName.split('__').pop() ?? '');

/** A state-changing call (not the agent's bookkeeping): what it is given are the options chosen. */
export const isAction = (c: SnapshotToolCall): boolean => (c.effectClass === 'write' || c.effectClass === 'send') && !isBookkeeping(c);

/** Facts from a call's arguments: identifiers of any call, every scalar option of an action. */
export function factsFromCallInput(c: SnapshotToolCall, msgIndex: number, blockIndex: number): Fact[] {
  const input = parseObject(c.input);
  if (!input) return [];
  const provenance: SlotProvenance = { source: 'tool_input', msgIndex, blockIndex, tool: c.toolName };
  const object = toolObject(c.toolName);
  const out: Fact[] = [];
  for (const [rawKey, value] of flatFields(input)) {
    const key = rawKey === 'id' ? (object ? `${object}_id` : '') : rawKey;
    if (!key || value.length > MAX_VALUE_CHARS) continue;
    const wanted = ID_KEY.test(key) || isDurableKey(key) || (isAction(c) && value.length <= MAX_OPTION_CHARS);
    if (wanted) out.push({ key, value, durable: isDurableKey(key), provenance });
  }
  return out;
}

/** A lookup by the user's own identifier: its result describes the user. */
const profileLookup = (c: SnapshotToolCall, input: Record<string, unknown> | null) =>
  c.effectClass === 'read' && !!input && Object.keys(input).some((k) => /^(?:(?:user|account|customer|member|client)_id|username|email)$/.test(canonicalKey(k)));

/** Facts from a call's result: ids an action created, the profile a lookup by the user's id returned. */
export function factsFromCallResult(c: SnapshotToolCall, msgIndex: number, blockIndex: number): Fact[] {
  if (c.success !== true) return [];
  const profile = profileLookup(c, c.effectClass === 'read' ? parseObject(c.input) : null);
  if (!isAction(c) && !profile) return [];
  const result = parseObject(c.resultText);
  if (!result) return [];
  const provenance: SlotProvenance = { source: 'tool_result', msgIndex, blockIndex, tool: c.toolName };
  const out: Fact[] = [];
  const take = (key: string, v: unknown) => {
    if (!isScalar(v) || out.some((f) => f.key === key)) return;
    const value = scalarText(v);
    if (value && value.length <= MAX_VALUE_CHARS) out.push({ key, value, durable: isDurableKey(key), provenance });
  };
  // top-level fields only (and one level of nesting for a profile's name, address …): results are large
  for (const [k, v] of Object.entries(result)) {
    const key = canonicalKey(k);
    if (isAction(c) && /_id$/.test(key)) take(key, v);
    else if (profile && isScalar(v)) {
      if (isDurableKey(key)) take(key, v);
    } else if (profile && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [f, fv] of Object.entries(v)) {
        const nested = canonicalKey(f);
        if (isDurableKey(nested)) take(nested, fv);
      }
    }
  }
  return out;
}
