/**
 * What the recorded tool results say, indexed for claim checking: the numbers of each result, the
 * enumeration-like fields of JSON results (a key whose values across the conversation are a few
 * lowercase words, such as a status or a cabin class) and the words of every text an agent could
 * have taken a value from. Built once per conversation.
 */
import type { SnapshotToolCall } from './types.js';

/** Numbers of a text, absolute, rounded to cents ("$2,544" and "-2544" both give 2544). */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  // thousands separators only in groups of three ("2,544"); a trailing comma is punctuation
  for (const m of text.matchAll(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g)) {
    const raw = m[0].replace(/,/g, '');
    const n = Math.abs(Number.parseFloat(raw));
    if (Number.isFinite(n)) out.push(Math.round(n * 100) / 100);
  }
  return out;
}

/** Money amounts of a sentence ("$1,023", "62 dollars"). */
export function moneyIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/(?:\$|€|£)\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)|\b(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?) (?:dollars|usd|eur|euros)\b/gi)) {
    out.push(...numbersIn(m[1] ?? m[2]!));
  }
  return out;
}

export interface ParsedResult {
  call: SnapshotToolCall;
  numbers: Set<number>;
  /** Numbers under payment-like keys (amount, paid, refund, charge…); all numbers of a text result. */
  amounts: Set<number>;
  /** key → string values found under it (any depth). */
  fields: Map<string, Set<string>>;
  text: string;
}

/** Keys whose numbers are money that moved (not prices of things). */
const AMOUNT_KEY_RE = /amount|paid|refund|charg|payment|credit|debit|total_paid/i;
const amountKeys = new Map<string, boolean>();
const AMOUNT_KEY = {
  test(key: string): boolean {
    let v = amountKeys.get(key);
    if (v === undefined) {
      if (amountKeys.size > 10_000) amountKeys.clear();
      amountKeys.set(key, (v = AMOUNT_KEY_RE.test(key)));
    }
    return v;
  },
};

function walk(v: unknown, fields: Map<string, Set<string>>, numbers: Set<number>, key: string, depth: number, amounts?: Set<number>): void {
  if (depth > 8) return;
  if (typeof v === 'number') {
    const n = Math.round(Math.abs(v) * 100) / 100;
    numbers.add(n);
    if (amounts && AMOUNT_KEY.test(key)) amounts.add(n);
  }
  else if (typeof v === 'string') {
    if (key) {
      let set = fields.get(key);
      if (!set) fields.set(key, (set = new Set()));
      set.add(v);
    }
  } else if (Array.isArray(v)) for (const x of v) walk(x, fields, numbers, key, depth + 1, amounts);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, fields, numbers, AMOUNT_KEY.test(key) && !AMOUNT_KEY.test(k) && typeof x === 'number' ? key : k, depth + 1, amounts);
}

/** A call's result as numbers and fields (JSON when it parses, else the text's numbers). */
export function parseResult(call: SnapshotToolCall): ParsedResult {
  const fields = new Map<string, Set<string>>();
  const numbers = new Set<number>();
  const amounts = new Set<number>();
  const text = call.resultText;
  const t = text.trim();
  let parsed = false;
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      walk(JSON.parse(t), fields, numbers, '', 0, amounts);
      parsed = true;
    } catch {
      // a result cut at the storage cap is not valid JSON: its numbers are still evidence
      parsed = false;
    }
  }
  if (!parsed) {
    for (const n of numbersIn(text)) {
      numbers.add(n);
      amounts.add(n);
    }
  }
  return { call, numbers, amounts, fields, text };
}

/** Enumeration-like values: lowercase words, 4–24 characters (status, class, type). */
const ENUM_VALUE = /^[a-z][a-z_ -]{2,22}[a-z]$/;

/**
 * Keys whose values across the conversation's results and inputs form a small vocabulary
 * (2–6 distinct enumeration-like words): the fields a claim can name a wrong value of.
 */
export function enumVocabulary(parsed: readonly ParsedResult[], inputs: readonly string[]): Map<string, Set<string>> {
  const all = new Map<string, Set<string>>();
  const add = (fields: Map<string, Set<string>>) => {
    for (const [k, vs] of fields) {
      for (const v of vs) {
        if (!ENUM_VALUE.test(v)) continue;
        let set = all.get(k);
        if (!set) all.set(k, (set = new Set()));
        set.add(v);
      }
    }
  };
  for (const p of parsed) add(p.fields);
  for (const i of inputs) {
    const t = i.trim();
    if (!t.startsWith('{')) continue;
    const fields = new Map<string, Set<string>>();
    try {
      walk(JSON.parse(t), fields, new Set(), '', 0);
    } catch {
      continue;
    }
    add(fields);
  }
  const out = new Map<string, Set<string>>();
  for (const [k, vs] of all) if (vs.size >= 2 && vs.size <= 6) out.set(k, vs);
  return out;
}

const phrase = (v: string) => v.replace(/[_-]+/g, ' ').toLowerCase();

/** A vocabulary value and the pattern that finds it as whole words. */
export interface VocabularyValue {
  value: string;
  re: RegExp;
}

/** Values of each key, longest phrase first, with their patterns compiled once. */
export function compileVocabulary(vocab: Map<string, Set<string>>): Map<string, VocabularyValue[]> {
  const out = new Map<string, VocabularyValue[]>();
  for (const [k, vs] of vocab) {
    const values = [...vs].sort((a, b) => phrase(b).length - phrase(a).length);
    out.set(k, values.map((value) => ({ value, re: new RegExp(`[^a-z0-9]${phrase(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^a-z0-9]`) })));
  }
  return out;
}

/** Normalizes a sentence for value matching: lower case, underscores, stars and dashes as spaces. */
export const normalizeForValues = (sentence: string) => ` ${sentence.toLowerCase().replace(/[_*-]+/g, ' ').replace(/\s+/g, ' ')} `;

/**
 * The vocabulary values a (normalized) sentence names, longest first so "basic economy" is not
 * also read as "economy".
 */
export function mentionedValues(normalized: string, values: readonly VocabularyValue[]): Set<string> {
  let s = normalized;
  const found = new Set<string>();
  for (const v of values) {
    if (v.re.test(s)) {
      found.add(v.value);
      s = s.replace(v.re, ' # ');
    }
  }
  return found;
}
