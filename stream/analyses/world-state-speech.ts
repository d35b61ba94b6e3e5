/**
 * Facts a person states in their turns, for the world state's slots: ids they give (explicitly —
 * "my user ID is …", "the reservation number is …" —, after a record noun — "reservations XEHM4B
 * and 59XX6W", "order #W123" —, or as the answer to the ids the agent just asked for), their
 * e-mail, name, phone and zip, the option they choose, file paths. "<noun> <id>" is read only
 * after nouns that name things with ids (a generic list: records, orders, commits, flights, items
 * …), so prose and pasted logs ("execute python3", "index 20edef5") are not read as ids. Also every id-like token they
 * say (`statedTokens`): a call that later uses such a value got it from the person, so its
 * provenance is the person's turn. Generic phrasing only; code is masked first.
 */
import type { SlotProvenance } from '../../schemas/world-state.js';
import { capText, maskCode } from './text/prose.js';
import { STOPWORDS } from './text/tokens.js';
import { canonicalKey, isDurableKey, type Fact } from './world-state-slots.js';

const MAX_VALUE_CHARS = 120;

/** Words that are not the noun of an identifier ("my ID is …", "see README", "version v2"). */
const NOT_A_NOUN = new Set('the my your a an this that its their his her our valid correct same new old is was be to for with on in at of and or use see run try version node python step line page port room chapter item number id code please here there it me you we they just also total exact full right whole'.split(' '));
const noun = (w: string) => !NOT_A_NOUN.has(w) && !STOPWORDS.has(w);
/** Record nouns whose ids may be letters only or digits only ("reservation HATHAT", "order 123456"). */
const RECORD_NOUNS = 'reservation|booking|order|ticket|case|confirmation|invoice|account|record|request|issue|transaction|shipment|tracking|claim|policy|itinerary|pnr|incident|subscription';
/** Other things that carry ids in conversation ("flight HAT136", "commit 67f02b0", "item 4B"): "<noun> <id>" is read only after these. */
const ID_NOUN = new RegExp(`^(?:${RECORD_NOUNS}|commit|pr|build|job|item|product|sku|flight|train|seat|device|container|instance|package|user|customer|member|employee|patient|student|vehicle|payment|card|certificate|voucher|coupon|unit|lot|batch|serial)$`);
const CODE_NOUN = /^(?:zip|postal|country|area|promo|discount|coupon|language|currency|status|error|exit|source|verification|access|auth|otp)$/;

const idLike = (v: string) => /\d/.test(v) || /_/.test(v) || /@/.test(v) || /^#?[A-Z0-9-]{4,}$/.test(v);
/** Numbers with a unit or an ordinal ("20th", "10am", "5kg", "2x") are not identifiers. */
const MEASURE = /^\d+(?:[.,]\d+)?(?:st|nd|rd|th|am|pm|h|hr|hrs|m|min|mins|s|sec|ms|kg|g|lb|lbs|km|mi|gb|mb|kb|tb|x|k|px|em|d|w|y)$/i;
const mixedToken = (v: string) => /[A-Za-z]/.test(v.replace(/^#/, '')) && /\d/.test(v) && !MEASURE.test(v);
/** An id after a record noun: mixed letters and digits, upper-case letters and digits, or a long number. */
const recordToken = (v: string) => mixedToken(v) || /^#?[A-Z][A-Z0-9]{4,11}$/.test(v) || /^#?\d{5,}$/.test(v) || /^#\d{3,}$/.test(v);

const EXPLICIT_ID = /\b([a-z]{2,})[ -](id|number(?!\s+of\b)|num|code)\b(?:\s*(?:is|was|=|:)\s*|\s+)?(#\s?)?([A-Za-z0-9][\w.@-]*\w)/gi;
const NOUN_TOKEN = /\b([A-Za-z]{3,})\s+["'“]?(#\d{3,}|#?[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)\b/g;
const RECORD_HEAD = new RegExp(`\\b(${RECORD_NOUNS})s?\\b((?:\\s+(?:ids?|codes?|numbers?|with|the|are|is|was|under|for|of|numbered|called|reference|ref)\\b|\\s*:)*)\\s*`, 'gi');
const LIST_TOKEN = /["'“]?(#?[A-Za-z0-9][\w-]*)["'”]?/y;
const LIST_SEP = /\s*(?:,\s*and|,|and|&)\s*/y;
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}/g;
const MY_NAME = /\b[Mm]y (?:full )?name is ([A-Z][a-z'-]+(?: [A-Z][a-z'-]+){0,2})/g;
const PHONE = /\b(?:phone|mobile|cell)(?: number)?\s*(?:is|:)?\s*(\+?\d[\d ().-]{6,18}\d)/gi;
const ZIP = /\bzip(?: code)?\s*(?:is|:)?\s*(\d{5}(?:-\d{4})?)\b/gi;
const CHOICE = /\b(?:(?:i'?ll|i will|i'?d like to|i want to)\s+(?:go with|take|choose|pick|select|opt for|go for)|(?:let'?s|we'?ll) (?:go with|go for|choose|pick)|i (?:choose|pick|select)|i(?:'d)? prefer)\s+((?:the |option |plan |choice )[^.!?\n]{1,78}|[^.!?\n\s]{1,40}(?: [^.!?\n\s]{1,40}){0,3}(?=[.!?\n]|$))/gi;
const FILE_PATH = /(?:^|[\s(`'"@])((?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s)`'",:;!?]|\.(?:\s|$))/g;
/** Ids an agent asks for: "your user ID", "the reservation number". */
const ASKED_ID = /\b(?:your|the)\s+([a-z]{3,})\s+(id|number(?!s?\s+of\b)|code)s?\b/gi;
/** The shape of an id-like token, tested on whitespace- and punctuation-separated words (`isSplitUnit`; a split is cheaper than a scanning regex on long pasted text). */
const ID_SHAPE = /^(?:#?[A-Za-z][\w-]*\d[\w-]*|[a-z]+_[a-z_]*[a-z0-9]|#?[A-Z0-9]{5,12}|#\d{3,})$/;
/** Characters of a turn searched for stated tokens (ids come early; long turns are pasted logs). */
const MAX_SCAN_CHARS = 4000;

function idKeyOf(n: string, kind: string): string {
  const w = n.toLowerCase();
  if (w === 'phone' || w === 'zip' || w === 'postal') return w === 'postal' ? 'zip' : w;
  if (kind.toLowerCase() === 'code' && CODE_NOUN.test(w)) return `${w}_code`;
  return canonicalKey(`${w}_id`);
}

/** Slot keys of the ids an agent message asks for ("your user ID" → `user_id`). */
export function askedIdKeys(agentText: string): string[] {
  const asked = [...maskCode(agentText).matchAll(ASKED_ID)].filter((m) => codeOk(m[1]!, m[2]!)).map((m) => m[1]!.toLowerCase()).filter((n) => !NOT_A_NOUN.has(n));
  return [...new Set(asked.map((n) => idKeyOf(n, 'id')))];
}

/** "<noun> code" names an id only for records and known codes ("confirmation code", "zip code"), not "the existing code". */
const codeOk = (n: string, kind: string) => kind.toLowerCase() !== 'code' || CODE_NOUN.test(n.toLowerCase()) || ID_NOUN.test(n.toLowerCase());

/** Every id-like token a person says (ids, handles with digits, codes), in order; not e-mail parts or measures. */
export function statedTokens(text: string): string[] {
  const out: string[] = [];
  const u = maskCode(capText(text, MAX_SCAN_CHARS));
  const n = u.length;
  let i = 0;
  // the words between runs of separators (`isSplitUnit`), in order; a word is cut out only when it
  // can have ID_SHAPE (a digit, '_', '#', or five or more capitals and digits)
  while (i < n) {
    if (isSplitUnit(u.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && !isSplitUnit(u.charCodeAt(i))) i++;
    let end = i;
    while (end > start && u.charCodeAt(end - 1) === 46) end--; // trailing dots
    const len = end - start;
    if (len < 2 || len > 60) continue;
    let marked = false;
    let capsOrDigits = true;
    let excluded = false;
    for (let k = start; k < end; k++) {
      const c = u.charCodeAt(k);
      if (c === 64 || c === 47 || c === 46) {
        excluded = true;
        break;
      }
      if ((c >= 48 && c <= 57) || c === 95 || c === 35) marked = true;
      else if (!(c >= 65 && c <= 90)) capsOrDigits = false;
    }
    if (excluded || (!marked && !(capsOrDigits && len >= 5))) continue;
    const t = u.slice(start, end);
    if (ID_SHAPE.test(t) && idLike(t) && !MEASURE.test(t)) out.push(t);
  }
  return out;
}

/** A UTF-16 unit separating words: `[\s,;:()[\]{}<>"'`“”‘’!?|=*]`. */
function isSplitUnit(c: number): boolean {
  switch (c) {
    case 44: case 59: case 58: case 40: case 41: case 91: case 93: case 123: case 125: case 60: case 62: case 34: case 39: case 96:
    case 0x201c: case 0x201d: case 0x2018: case 0x2019: case 33: case 63: case 124: case 61: case 42:
    case 32: case 9: case 10: case 11: case 12: case 13: case 0xa0: case 0x1680: case 0x2028: case 0x2029: case 0x202f: case 0x205f: case 0x3000: case 0xfeff:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200a;
  }
}

/** Ids listed after a record noun: "reservation IDs are XEHM4B and 59XX6W", "order #W1", "reservation under DF89BM". */
function recordIds(t: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const m of t.matchAll(RECORD_HEAD)) {
    let pos = m.index! + m[0].length;
    for (;;) {
      LIST_TOKEN.lastIndex = pos;
      const tm = LIST_TOKEN.exec(t);
      if (!tm || !recordToken(tm[1]!)) break;
      out.push([m[1]!.toLowerCase(), tm[1]!]);
      LIST_SEP.lastIndex = LIST_TOKEN.lastIndex;
      if (!LIST_SEP.exec(t)) break;
      pos = LIST_SEP.lastIndex;
    }
  }
  return out;
}

/** Facts a person states in one turn (`previousAgentText`: the agent message it answers). */
export function factsFromUserText(text: string, msgIndex: number, previousAgentText: string): Fact[] {
  const t = maskCode(text);
  const provenance: SlotProvenance = { source: 'user_text', msgIndex, blockIndex: 0 };
  const out: Fact[] = [];
  const taken = new Set<string>();
  /** One value per key, except ids listed together (each is stated: set, then updated, in order). */
  const add = (key: string, value: string, list = false) => {
    const v = value.trim().replace(/[.,;:!?]+$/, '');
    if (!key || !v || v.length > MAX_VALUE_CHARS || taken.has(v.replace(/^#/, ''))) return;
    if (!list && out.some((f) => f.key === key)) return;
    out.push({ key, value: v, durable: isDurableKey(key), provenance });
    taken.add(v.replace(/^#/, ''));
  };
  // cheap tests first: most turns hold none of these
  if (t.includes('@')) for (const m of t.matchAll(EMAIL)) add('email', m[0]);
  if (t.includes('name is')) for (const m of t.matchAll(MY_NAME)) add('name', m[1]!);
  if (/phone|mobile|cell/i.test(t)) for (const m of t.matchAll(PHONE)) add('phone', m[1]!.replace(/\s+/g, ' '));
  if (/zip/i.test(t)) for (const m of t.matchAll(ZIP)) add('zip', m[1]!);
  if (/\b(?:id|number|num|code)\b/i.test(t)) {
    for (const m of t.matchAll(EXPLICIT_ID)) {
      const [, n, kind, hash, value] = m;
      if (noun(n!.toLowerCase()) && codeOk(n!, kind!) && idLike(value!)) add(idKeyOf(n!, kind!), (hash ? '#' : '') + value!);
    }
  }
  if (/[\d#_]|[A-Z]{5}/.test(t)) {
    for (const [n, token] of recordIds(t)) add(canonicalKey(`${n}_id`), token, true);
    for (const m of t.matchAll(NOUN_TOKEN)) if (ID_NOUN.test(m[1]!.toLowerCase()) && (mixedToken(m[2]!) || m[2]!.startsWith('#'))) add(canonicalKey(`${m[1]!.toLowerCase()}_id`), m[2]!);
    const asked = askedIdKeys(previousAgentText);
    if (asked.length) {
      // an answer's id has a digit, an underscore or a '#' (all-capital words are too often just words)
      const tokens = statedTokens(t).filter((v) => !taken.has(v.replace(/^#/, '')) && /[\d_#]/.test(v));
      asked.slice(0, tokens.length).forEach((key, i) => add(key, tokens[i]!));
    }
  }
  if (/\b(?:go with|take|choose|pick|select|opt for|go for|prefer)\b/i.test(t)) for (const m of t.matchAll(CHOICE)) add('choice', m[1]!);
  if (t.includes('/')) for (const m of t.matchAll(FILE_PATH)) add('file_path', m[1]!);
  return out;
}
