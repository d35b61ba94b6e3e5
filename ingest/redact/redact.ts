/**
 * Secret redaction for stored commands, error texts and prompt text (spec/ingestion.md Limits):
 * environment-style assignments, header values, explicit key/value pairs (JSON, YAML, flags,
 * query strings), credentials in connection strings, private key blocks and well-known token
 * shapes. The value is replaced by `[REDACTED]`, the key kept. Ordinary prose is left alone:
 * a value is only taken when it is attached (`KEY=value`, `"key": "value"`) or looks like a
 * credential (digits, mixed case or symbols); placeholders such as `$TOKEN`, `<key>` and `***`
 * are never touched. Pure and idempotent.
 */
import { setOwn } from '../../core/own.js';
import { capBytes } from './cap.js';

export const REDACTED = '[REDACTED]';

/** Words that make a key name secret-bearing. */
const SECRET_WORD =
  '(?:password|passwd|passphrase|(?<![a-z])pass(?![a-z])|pwd(?![a-z])|secret(?!ary)|token(?![a-z])|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?(?![a-z])|(?<![a-z])auth(?![a-z])|session[_-]?key|signing[_-]?key|encryption[_-]?key|cookie(?![a-z])|(?<![a-z])dsn(?![a-z])|account[_-]?key|connection[_-]?string|database[_-]?url|webhook[_-]?url)';

/** Keys that name a secret's location or metadata, not the secret: `TOKEN_FILE`, `--password-stdin`. */
const BENIGN_KEY = /(?:file|path|dir|name|type|count|length|limit|ttl|expiry|expires|stdin|env|id|mode|method|header|source)$/i;

/** An identifier containing a secret word: `AWS_SECRET_ACCESS_KEY`, `db_password`, `apiKey`. */
const SECRET_KEY = `[A-Za-z0-9_.-]*${SECRET_WORD}[A-Za-z0-9_.-]*`;

const PLACEHOLDER = /^(?:\$|<|\{\{|%|\[REDACTED|\*{3,}|x{3,}$|\.{3}|…|null$|none$|true$|false$|undefined$|changeme$|example$|redacted$|your[_-])/i;

/** Is `v` a credential-looking token rather than a word of prose? */
export function looksSecret(v: string): boolean {
  if (v.length < 6 || PLACEHOLDER.test(v)) return false;
  const letters = /[A-Za-z]/.test(v);
  const digits = /\d/.test(v);
  if (digits && letters) return true;
  if (v.length < 8) return false;
  const innerUpper = /[a-z]/.test(v) && /[A-Z]/.test(v.slice(1));
  const symbols = /[_+/=!@#$%^&*~]/.test(v) && /[A-Za-z0-9]{4}/.test(v);
  return innerUpper || symbols || (digits && v.length >= 12);
}

const usable = (v: string) => v.length > 0 && !PLACEHOLDER.test(v);
const secretKey = (k: string) => !BENIGN_KEY.test(k.replace(/^-+/, ''));

/**
 * `hint` is a cheap test that every match of the rule's pattern implies (a literal or the bare
 * secret word the pattern needs): a rule whose hint fails on the current text cannot match it,
 * so skipping it changes nothing. Most stored text carries no hint at all and costs a few scans.
 */
type Rule = { hint: (s: string) => boolean; re: RegExp; replace: (m: string, ...groups: string[]) => string };

const SECRET_WORD_RE = new RegExp(SECRET_WORD, 'i');
// four rules share this hint and usually see the same string: remember the last answer
let lastText: string | undefined;
let lastHas = false;
const hasSecretWord = (s: string) => (s === lastText ? lastHas : ((lastText = s), (lastHas = SECRET_WORD_RE.test(s))));
const test = (re: RegExp) => (s: string) => re.test(s);

const quotedOrBare = `("[^"\\n]*"|'[^'\\n]*'|[^\\s"'&;,|)}\\]]+)`;
const stripQuotes = (v: string) => v.replace(/^(["'])([\s\S]*)\1$/, '$2');
const keepQuotes = (v: string) => (/^["']/.test(v) ? `${v[0]}${REDACTED}${v[0]}` : REDACTED);

const RULES: Rule[] = [
  // PEM private keys, whole block (an unterminated block is cut to the end)
  {
    hint: (s) => s.includes('-----BEGIN'),
    re: /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$)/g,
    replace: (_m, kind) => `-----BEGIN ${kind}-----${REDACTED}-----END ${kind}-----`,
  },
  // well-known token shapes, wherever they stand
  {
    hint: test(/AKIA|ASIA|AGPA|AIDA|AROA|ANPA|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-|[sr]k_|AIza|npm_|eyJ|SG\./),
    re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}\b|\bglpat-[A-Za-z0-9_-]{20,}\b|\bxox[abposr]-[A-Za-z0-9-]{10,}\b|\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}\b|\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b|\bAIza[0-9A-Za-z_-]{35}\b|\bnpm_[A-Za-z0-9]{36}\b|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b|\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\b/g,
    replace: () => REDACTED,
  },
  // header values: Authorization / Proxy-Authorization with or without a scheme
  {
    hint: test(/authorization/i),
    re: /\b((?:proxy-)?authorization)(\s*[:=]\s*)(?:(bearer|basic|token|digest|negotiate|apikey|api-key|aws4-hmac-sha256|sharedkey)\s+)?("[^"\n]*"|'[^'\n]*'|[^\s"',;]+(?:, ?[A-Za-z]+=[^\s"',;]+)*)/gi,
    replace: (m, name, sep, scheme, value) => {
      const v = stripQuotes(value);
      if (!usable(v) || (!scheme && !looksSecret(v))) return m;
      return `${name}${sep}${scheme ? `${scheme} ` : ''}${keepQuotes(value)}`;
    },
  },
  // other credential headers: Cookie, X-Api-Key, X-Auth-Token, Private-Token, ...
  {
    hint: test(/cookie|key|token|secret|auth|signature/i),
    re: /\b((?:set-)?cookie|x-[a-z0-9-]*(?:key|token|secret|auth|signature)[a-z0-9-]*|private-token|api-key)(\s*:\s*)([^\n"']+?)(?=\s*(?:["'\n]|$))/gi,
    replace: (m, name, sep, value) => (usable(value.trim()) && looksSecret(value.trim()) ? `${name}${sep}${REDACTED}` : m),
  },
  // a bare bearer/basic credential (in prose only when it looks like one)
  {
    hint: test(/bearer|basic/i),
    re: /\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{6,})/gi,
    replace: (m, scheme, sp, value) => (looksSecret(value) && value !== REDACTED ? `${scheme}${sp}${REDACTED}` : m),
  },
  // credentials in URLs: scheme://user:password@host
  {
    hint: (s) => s.includes('://') && s.includes('@'),
    re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]*):([^\s@/'"]+)@/gi,
    replace: (m, prefix, pw) => (usable(pw) ? `${prefix}:${REDACTED}@` : m),
  },
  // JSON / Python dict: "api_key": "value"
  {
    hint: hasSecretWord,
    re: new RegExp(`(["']${SECRET_KEY}["']\\s*:\\s*)("[^"\\n]*"|'[^'\\n]*')`, 'gi'),
    replace: (m, head, value) => (usable(stripQuotes(value)) && secretKey(head.replace(/["':\s]/g, '')) ? `${head}${keepQuotes(value)}` : m),
  },
  // command flags: --token=value, --password value, -p value is too ambiguous and left out
  {
    hint: hasSecretWord,
    re: new RegExp(`(--?${SECRET_KEY})(=|\\s+)${quotedOrBare}`, 'gi'),
    replace: (m, flag, sep, value) => {
      const v = stripQuotes(value);
      if (!usable(v) || v.startsWith('-') || !secretKey(flag)) return m;
      if (sep !== '=' && !/^["']/.test(value) && !looksSecret(v)) return m;
      return `${flag}${sep}${keepQuotes(value)}`;
    },
  },
  // mysql-style -pSECRET glued to the flag
  {
    hint: (s) => s.includes('mysql'),
    re: /(\bmysql(?:dump|admin)?\b[^\n]*?\s-p)([^\s"']+|"[^"\n]*"|'[^'\n]*')/g,
    replace: (m, head, value) => (usable(stripQuotes(value)) ? `${head}${keepQuotes(value)}` : m),
  },
  // tool-specific password arguments: sshpass -p, openssl pass:, curl -u user:password
  {
    hint: test(/sshpass|pass:|\s-u\s|\s--user\s/),
    re: /(\bsshpass\s+-p\s*|\bpass:|\s(?:-u|--user)\s+[^\s:'"]+:)("[^"\n]*"|'[^'\n]*'|[^\s"']+)/g,
    replace: (m, head, value) => (usable(stripQuotes(value)) ? `${head}${keepQuotes(value)}` : m),
  },
  // KEY=value (environment style, query strings, ini), also `export KEY="value"`
  {
    hint: hasSecretWord,
    re: new RegExp(`(\\b${SECRET_KEY})=${quotedOrBare}`, 'gi'),
    replace: (m, key, value) => (usable(stripQuotes(value)) && secretKey(key) ? `${key}=${keepQuotes(value)}` : m),
  },
  // key: value / key = value (YAML, ini, logs) when the value looks like a credential or is quoted
  {
    hint: hasSecretWord,
    re: new RegExp(`(\\b${SECRET_KEY})(\\s*[:=]\\s*|\\s+is\\s+|[ \\t]+)${quotedOrBare}`, 'gi'),
    replace: (m, key, sep, value) => {
      const v = stripQuotes(value);
      if (!usable(v) || !secretKey(key)) return m;
      // `aws_secret_access_key VALUE`: only identifier-like keys take a space-separated value
      if (/^[ \t]+$/.test(sep) && !(/[_.-]/.test(key) && looksSecret(v))) return m;
      if (!/^["']/.test(value) && !looksSecret(v)) return m;
      return `${key}${sep}${keepQuotes(value)}`;
    },
  },
];

/**
 * The last texts redacted and their results: normalization redacts one text more than once (a
 * prompt as a stored attribute and as the prompt facet, an error as attribute and tool facet),
 * usually the same string object, so a comparison replaces a second scan.
 */
const RECENT = 4;
const recentIn: string[] = new Array<string>(RECENT).fill('');
const recentOut: string[] = new Array<string>(RECENT).fill('');
let recentNext = 0;

/** Masks secrets in `text`; returns the same string when nothing matched. */
export function redact(text: string): string {
  if (!text) return text;
  for (let i = 0; i < RECENT; i++) if (recentIn[i] === text) return recentOut[i]!;
  const out = redactOnce(text);
  recentIn[recentNext] = text;
  recentOut[recentNext] = out;
  recentNext = (recentNext + 1) % RECENT;
  return out;
}

function redactOnce(text: string): string {
  let mask = triggeredRules(text);
  let out = text;
  for (let i = 0; mask !== 0 && i < RULES.length; i++) {
    const rule = RULES[i]!;
    if (!(mask & (1 << i)) || !rule.hint(out)) continue;
    const next = out.replace(rule.re, rule.replace as (m: string, ...a: string[]) => string);
    // a replacement rewrites the text: the literals found before may no longer describe it
    if (next !== out) mask = triggeredRules((out = next));
  }
  return out;
}

/**
 * Every literal some rule needs, lower-case, in one alternation: each ASCII letter a rule matches,
 * in either case, lower-cases to the literal's letter, so a text whose lower-cased form holds none
 * of them cannot match any rule. No literal is a prefix of another, so scanning from every start
 * position finds every occurrence.
 */
const TRIGGER =
  /pass|pwd|secret|token|key|credential|auth|cookie|dsn|connection|database|webhook|signature|bearer|basic|:\/\/|-----begin|akia|asia|agpa|aida|aroa|anpa|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-|[sr]k_|aiza|npm_|eyj|sg\.|mysql|\s-u\s|\s--user\s/g;

/** Rule indexes (bits) of RULES above, by the literal that may start a match of the rule. */
const [PEM, TOKENS, AUTHORIZATION, HEADERS, BEARER, URL, JSON_KEY, FLAG, MYSQL, TOOL_ARGS, ASSIGN, KEY_VALUE] = RULES.map((_, i) => 1 << i) as number[] as [
  number, number, number, number, number, number, number, number, number, number, number, number,
];
const SECRET_RULES = JSON_KEY | FLAG | ASSIGN | KEY_VALUE;
const TRIGGER_RULES = new Map<string, number>([
  ['pass', SECRET_RULES | TOOL_ARGS],
  ...['pwd', 'credential', 'dsn', 'connection', 'database', 'webhook'].map((w) => [w, SECRET_RULES] as [string, number]),
  ...['secret', 'token', 'key', 'cookie'].map((w) => [w, SECRET_RULES | HEADERS] as [string, number]),
  ['auth', SECRET_RULES | HEADERS | AUTHORIZATION],
  ['signature', HEADERS],
  ['bearer', BEARER],
  ['basic', BEARER],
  ['://', URL],
  ['-----begin', PEM],
  ['mysql', MYSQL],
]);

/** Bit set of the rules whose literals occur in `text`; 0 means nothing can be redacted. */
function triggeredRules(text: string): number {
  const lower = text.toLowerCase();
  let mask = 0;
  TRIGGER.lastIndex = 0;
  for (let m = TRIGGER.exec(lower); m; m = TRIGGER.exec(lower)) {
    const lit = m[0];
    // whitespace-framed `-u`/`--user`, else a token prefix (akia, ghp_, sk-, eyj, ...)
    mask |= TRIGGER_RULES.get(lit) ?? (lit.includes('-u') ? TOOL_ARGS : TOKENS);
    TRIGGER.lastIndex = m.index + 1;
  }
  return mask;
}

/** Whether any rule may apply to `text` (the cheap scan `redact` starts with). */
export function mayHoldSecret(text: string): boolean {
  return triggeredRules(text) !== 0;
}

/** Every rule on every text, without hints: the reference the hinted path must equal (tests). */
export function redactUnhinted(text: string): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule.re, rule.replace as (m: string, ...a: string[]) => string);
  return out;
}

const SECRET_KEY_EXACT = new RegExp(`^${SECRET_KEY}$`, 'i');

type Container = Record<string, unknown> | unknown[];

const leafText = (s: string, maxBytes: number | undefined) => (maxBytes === undefined ? redact(s) : capBytes(redact(s), maxBytes).text);

/** The copy of one value: a text redacted (and capped), a container created empty and queued to be filled. */
function copyOf(v: unknown, maxBytes: number | undefined, work: Container[]): unknown {
  if (typeof v === 'string') return leafText(v, maxBytes);
  if (v === null || typeof v !== 'object') return v;
  const c: Container = Array.isArray(v) ? new Array<unknown>(v.length) : {};
  work.push(v as Container, c);
  return c;
}

/**
 * Redacts every string inside a JSON value (tool inputs, structured errors, metadata); keys are
 * kept. With `maxBytes`, each string is then cut to that many UTF-8 bytes (the caps of
 * spec/ingestion.md Limits for texts held inside a structured value). Iterative, with an explicit
 * work list of (source, copy) pairs, so any depth a body may have is covered without growing the
 * call stack.
 */
export function redactDeep(value: unknown, maxBytes?: number): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? leafText(value, maxBytes) : value;
  const work: Container[] = [];
  const root = copyOf(value, maxBytes, work);
  while (work.length) {
    const out = work.pop()!;
    const src = work.pop()!;
    if (Array.isArray(src)) {
      for (let i = 0; i < src.length; i++) (out as unknown[])[i] = copyOf(src[i], maxBytes, work);
      continue;
    }
    for (const k of Object.keys(src)) {
      const v = src[k];
      const hidden = typeof v === 'string' && SECRET_KEY_EXACT.test(k) && secretKey(k) && usable(v);
      setOwn(out as Record<string, unknown>, k, hidden ? REDACTED : copyOf(v, maxBytes, work));
    }
  }
  return root;
}
