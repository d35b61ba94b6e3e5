/**
 * Drain-style masking: the variable parts of an error statement (ids, hashes, uuids, paths, urls,
 * numbers, quoted values, timestamps, line/column references, emails, durations) become typed
 * placeholders, so two failures with the same cause produce the same tokens whatever object they
 * were about. Order matters: wider shapes (urls, timestamps, paths) are masked before the
 * numbers they contain.
 */

/**
 * Codes that name the cause (HTTP status codes, compiler and runtime error codes) are kept and
 * bracketed `⟦404⟧`, `⟦TS2322⟧`: two statements that differ in a code are different causes however
 * alike the rest reads ("npm ERR! code E404" vs "npm ERR! code ERESOLVE").
 */
export const isCode = (token: string): boolean => token.startsWith('⟦');

/** Placeholders, in the template text and in tokens. `<*>` is a position two templates disagree on. */
export const PLACEHOLDERS = ['<URL>', '<EMAIL>', '<UUID>', '<TS>', '<DUR>', '<LOC>', '<HEX>', '<PATH>', '<Q>', '<ID>', '<NUM>', '<*>'] as const;
export const WILDCARD = '<*>';

const PLACEHOLDER_TOKEN = /^<(URL|EMAIL|UUID|TS|DUR|LOC|HEX|PATH|Q|ID|NUM|\*)>$/;
export const isPlaceholder = (token: string): boolean => PLACEHOLDER_TOKEN.test(token);

interface Mask {
  re: RegExp;
  to: string;
}

// quoted values: a quote that opens after a boundary and closes before one, on one line, short;
// "doesn't" and "can't" never open a quote because a letter precedes the apostrophe
const QUOTED: Mask[] = [
  { re: /(^|[\s(=:,[{])"[^"\n]{0,120}"(?=$|[\s).,:;\]}!?])/g, to: '$1<Q>' },
  { re: /(^|[\s(=:,[{])'[^'\n]{0,120}'(?=$|[\s).,:;\]}!?])/g, to: '$1<Q>' },
  { re: /(^|[\s(=:,[{])`[^`\n]{0,120}`(?=$|[\s).,:;\]}!?])/g, to: '$1<Q>' },
  { re: /(^|[\s(=:,[{])[“‘][^”’\n]{0,120}[”’](?=$|[\s).,:;\]}!?])/g, to: '$1<Q>' },
];

const MASKS: Mask[] = [
  // JSON objects on one line (an API's error body): one value, whatever its keys
  { re: /\{[^{}\n]*(?:\{[^{}\n]*\}[^{}\n]*)*\}/g, to: '<Q>' },
  { re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>()]+/gi, to: '<URL>' },
  { re: /\b[\w.+-]+@(?:[\w-]+\.)+[A-Za-z]{2,}\b/g, to: '<EMAIL>' },
  { re: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, to: '<UUID>' },
  // ISO dates and times, with or without a time part and zone
  { re: /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, to: '<TS>' },
  { re: /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, to: '<TS>' },
  // durations: "2m 0.0s", "834ms", "1.5 seconds"
  { re: /\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?)(?:\s+\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds?))?\b/g, to: '<DUR>' },
  // line / column references: "line 12, column 3", "(6,33)", ":46:12"
  { re: /\b(?:line|ln)\s+\d+(?:\s*,?\s*(?:column|col)\s+\d+)?/gi, to: '<LOC>' },
  { re: /\((?:\d+),\s?(?:\d+)\)/g, to: '<LOC>' },
  { re: /\b0x[0-9a-f]+\b/gi, to: '<HEX>' },
  // hashes: 7+ hex characters with at least one digit and one letter
  { re: /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, to: '<HEX>' },
  // paths: anything with a slash (absolute, relative, ~, ./, Windows), then bare file names
  { re: /(?:[A-Za-z]:\\|~|\.{1,2}(?=\/))?(?:[\w.@+~-]*[/\\])+[\w.@+*~\-[\]]*(?::\d+)*/g, to: '<PATH>' },
  { re: /\b[\w-]+(?:\.[\w-]+)*\.(?=[a-z]*[a-z])[a-z][a-z0-9]{0,7}(?::\d+)+\b/gi, to: '<PATH>' },
  { re: /\b[\w-]+\.(?:py|js|ts|tsx|jsx|mjs|cjs|json|jsonl|ya?ml|toml|md|txt|csv|sql|sqlite|db|sh|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|php|html|css|lock|cfg|ini|env|xml|plist|log|zip|gz|tar)\b/gi, to: '<PATH>' },
];

// identifiers: a token mixing letters and digits (HAT030, gift_card_5094406, toolu_01X…)
const ID = /\b(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9][\w-]*\b/g;
// an error code right after "error", "code" or "errno" (error TS2322, error[E0425], code ERESOLVE)
const ERROR_CODE = /(\b(?:error|code|errno)\s*[:[(]?\s*)([A-Z][A-Z0-9_]{2,}|[A-Z]{1,4}\d{2,5})\b/g;
const NUM = /[-+]?\b\d+(?:[.,]\d+)*\b%?/g;

/** Masks one statement line. Placeholders never contain each other. */
export function mask(text: string): string {
  let s = text;
  for (const m of QUOTED) s = s.replace(m.re, m.to);
  for (const m of MASKS) s = s.replace(m.re, m.to);
  s = s.replace(ERROR_CODE, (_, before: string, code: string) => `${before}⟦${code}⟧`);
  s = s.replace(ID, (t, at: number, all: string) => (isPlaceholderWord(t) || all[at - 1] === '⟦' ? t : '<ID>'));
  s = s.replace(NUM, (n, at: number, all: string) => (all[at - 1] === '⟦' ? n : isStatusCode(n, all.slice(Math.max(0, at - 24), at)) ? `⟦${n}⟧` : '<NUM>'));
  return s;
}

/** HTTP status codes are the cause, not a variable: "status code 404", "HTTP 429", "API Error: 529". */
function isStatusCode(n: string, before: string): boolean {
  return /^[1-5]\d\d$/.test(n) && /(?:status(?: code)?|HTTP(?:\/[\d.]+)?|error|code)\s*:?\s*$/i.test(before);
}

// the placeholder names themselves are words of letters, safe from the id mask; kept explicit
const isPlaceholderWord = (t: string) => /^(URL|EMAIL|UUID|TS|DUR|LOC|HEX|PATH|Q|ID|NUM)$/.test(t);

const TOKEN = /<(?:URL|EMAIL|UUID|TS|DUR|LOC|HEX|PATH|Q|ID|NUM|\*)>|⟦[^⟧\s]+⟧|[A-Za-z][A-Za-z0-9_'’-]*/g;

/**
 * Tokens of a masked statement: words and placeholders; punctuation is dropped (it varies with
 * wrapping and quoting, not with the cause). Runs of the same placeholder collapse into one, so
 * "a b c" quoted three ways and one path spelled in two pieces give the same template.
 */
export function tokenize(masked: string, maxTokens: number): string[] {
  const out: string[] = [];
  for (const m of masked.matchAll(TOKEN)) {
    let t = m[0].replace(/['’-]+$/, '');
    if (!t) continue;
    if (isPlaceholder(t) && out.length && out[out.length - 1] === t) continue;
    out.push(t);
    if (out.length >= maxTokens) break;
  }
  return out;
}
