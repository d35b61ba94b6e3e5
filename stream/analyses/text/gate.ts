/**
 * Literal gates for regular expressions: from a pattern's source, the literal strings one of which
 * every match must contain ("\bi (?:already )?told you\b" needs "told you"; an alternation needs
 * one literal of each branch). A text that contains none of them cannot match, so the pattern is
 * not run on it. The gate only ever skips a pattern that would not have matched: results are the
 * same as running every pattern, at the cost of a few substring searches on most texts.
 *
 * Case-insensitive patterns are gated with ASCII capitals folded onto their lower case. This is
 * sound because a case-insensitive pattern without the `u` flag matches an ASCII letter only with
 * its two ASCII cases; literals with non-ASCII characters are not used, nor case-sensitive
 * literals with letters. Patterns with the `u` or `v` flag are not gated (their case folding is
 * wider).
 */

/** A set of literals, one of which every match contains; `null`: nothing is required. */
type Need = string[] | null;

/**
 * What a (sub)pattern requires, and when it can only match a few literal strings (an alternation
 * of words, an optional word), exactly which: `exact` lets literals grow across it
 * ("the (hell|heck)" needs "the hell" or "the heck").
 */
interface Req {
  need: Need;
  exact: string[] | null;
}

interface Parser {
  src: string;
  i: number;
  ci: boolean;
}

const MIN_LITERAL = 3;
/** Most alternatives a growing literal may have before it is cut. */
const MAX_ALTERNATIVES = 64;

/** How selective a requirement is: the shortest literal decides, fewer alternatives break ties. */
function better(a: string[], b: string[]): boolean {
  const la = Math.min(...a.map((s) => s.length));
  const lb = Math.min(...b.map((s) => s.length));
  return la !== lb ? la > lb : a.length < b.length;
}

const uniq = (xs: string[]) => [...new Set(xs)];

function alternation(p: Parser): Req {
  const branches: Req[] = [sequence(p)];
  while (p.src[p.i] === '|') {
    p.i++;
    branches.push(sequence(p));
  }
  const exact = branches.every((b) => b.exact) ? uniq(branches.flatMap((b) => b.exact!)) : null;
  const need = branches.every((b) => b.need) ? uniq(branches.flatMap((b) => b.need!)) : null;
  return { need, exact: exact && exact.length <= MAX_ALTERNATIVES ? exact : null };
}

type Atom = { kind: 'char'; ch: string } | { kind: 'any' } | { kind: 'zero' } | { kind: 'group'; req: Req };

function cross(a: readonly string[], b: readonly string[]): string[] {
  return uniq(a.flatMap((x) => b.map((y) => x + y)));
}

function sequence(p: Parser): Req {
  const candidates: string[][] = [];
  /** The literal text just matched, as its possible strings ('' when nothing is known). */
  let run: string[] = [''];
  let exact = true;
  const flush = () => {
    if (run.every((r) => r !== '')) candidates.push(run);
    run = [''];
  };
  const extend = (alts: readonly string[]) => {
    const next = cross(run, alts);
    if (next.length > MAX_ALTERNATIVES) {
      flush();
      exact = false;
      run = [...alts];
    } else run = next;
  };
  while (p.i < p.src.length && p.src[p.i] !== '|' && p.src[p.i] !== ')') {
    const atom = readAtom(p);
    const q = readQuantifier(p);
    if (atom.kind === 'zero') continue; // zero width: the text on both sides is contiguous
    let alts: string[] | null = null;
    if (atom.kind === 'char') {
      const lit = literalOf(atom.ch, p.ci);
      alts = lit === null ? null : [lit];
    } else if (atom.kind === 'group') alts = atom.req.exact;
    if (q && q.min === 0) {
      if (alts && q.max === 1) extend([...alts, '']);
      else {
        flush(); // may be absent or repeated: only what is around it is known
        exact = false;
      }
      continue;
    }
    const repeated = q !== null && q.max !== 1;
    if (alts) {
      extend(alts);
      if (repeated) {
        // "ab+c": a match holds "ab" and "bc", not necessarily "abc"
        flush();
        exact = false;
        run = [...alts];
      }
      continue;
    }
    flush();
    exact = false;
    if (atom.kind === 'group' && atom.req.need) candidates.push(atom.req.need);
  }
  const whole = exact ? run : null;
  flush();
  let best: string[] | null = null;
  for (const c of candidates) if (!best || better(c, best)) best = c;
  return { need: best, exact: whole };
}

/** The character as a literal of the gate, or null when case folding could match others. */
function literalOf(ch: string, ci: boolean): string | null {
  if (!ci) return ch;
  if (ch.charCodeAt(0) < 128) return ch.toLowerCase();
  return ch.toLowerCase() === ch.toUpperCase() ? ch : null;
}

function readAtom(p: Parser): Atom {
  const c = p.src[p.i]!;
  if (c === '(') {
    p.i++;
    let lookaround = false;
    if (p.src[p.i] === '?') {
      const next = p.src[p.i + 1];
      if (next === ':') p.i += 2;
      else if (next === '=' || next === '!') {
        p.i += 2;
        lookaround = true;
      } else if (next === '<' && (p.src[p.i + 2] === '=' || p.src[p.i + 2] === '!')) {
        p.i += 3;
        lookaround = true;
      } else if (next === '<') {
        p.i = p.src.indexOf('>', p.i) + 1; // named group
      } else throw new Error(`unsupported group at ${p.i}`);
    }
    const req = alternation(p);
    if (p.src[p.i] !== ')') throw new Error(`unclosed group at ${p.i}`);
    p.i++;
    return lookaround ? { kind: 'zero' } : { kind: 'group', req };
  }
  if (c === '[') {
    p.i++;
    if (p.src[p.i] === '^') p.i++;
    if (p.src[p.i] === ']') p.i++; // "[]" or "[^]" … a leading ] in a class
    while (p.i < p.src.length && p.src[p.i] !== ']') p.i += p.src[p.i] === '\\' ? 2 : 1;
    p.i++;
    return { kind: 'any' };
  }
  if (c === '\\') {
    const e = p.src[p.i + 1]!;
    p.i += 2;
    if (e === 'b' || e === 'B') return { kind: 'zero' };
    if ('dDwWsS'.includes(e)) return { kind: 'any' };
    if (e === 'n') return { kind: 'char', ch: '\n' };
    if (e === 't') return { kind: 'char', ch: '\t' };
    if (e === 'r') return { kind: 'char', ch: '\r' };
    if (e === 'f') return { kind: 'char', ch: '\f' };
    if (e === 'v') return { kind: 'char', ch: '\v' };
    if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(p.src.slice(p.i, p.i + 2))) {
      p.i += 2;
      return { kind: 'char', ch: String.fromCharCode(parseInt(p.src.slice(p.i - 2, p.i), 16)) };
    }
    if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(p.src.slice(p.i, p.i + 4))) {
      p.i += 4;
      return { kind: 'char', ch: String.fromCharCode(parseInt(p.src.slice(p.i - 4, p.i), 16)) };
    }
    if (/[0-9]/.test(e)) {
      while (/[0-9]/.test(p.src[p.i] ?? '')) p.i++;
      return { kind: 'zero' }; // a back reference (may be empty) or an octal escape: nothing known
    }
    if (e === 'k' && p.src[p.i] === '<') {
      p.i = p.src.indexOf('>', p.i) + 1;
      return { kind: 'zero' };
    }
    if (e === 'c' || e === 'p' || e === 'P' || e === 'x' || e === 'u') return { kind: 'any' };
    return { kind: 'char', ch: e }; // an escaped punctuation character stands for itself
  }
  p.i++;
  if (c === '.') return { kind: 'any' };
  if (c === '^' || c === '$') return { kind: 'zero' };
  return { kind: 'char', ch: c };
}

function readQuantifier(p: Parser): { min: number; max: number } | null {
  const c = p.src[p.i];
  let q: { min: number; max: number } | null = null;
  if (c === '*') q = { min: 0, max: Infinity };
  else if (c === '+') q = { min: 1, max: Infinity };
  else if (c === '?') q = { min: 0, max: 1 };
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.src.slice(p.i));
    if (!m) return null; // a literal brace
    p.i += m[0].length - 1;
    q = { min: Number(m[1]), max: m[2] === undefined ? Number(m[1]) : m[3] ? Number(m[3]) : Infinity };
  }
  if (!q) return null;
  p.i++;
  if (p.src[p.i] === '?') p.i++; // lazy
  return q;
}

/**
 * The literals one of which every match of `re` contains (lower-cased for a case-insensitive
 * pattern), or null when the pattern requires no literal of at least three characters.
 */
export function requiredLiterals(re: RegExp): string[] | null {
  if (re.flags.includes('u') || re.flags.includes('v')) return null;
  let need: Need;
  try {
    const p: Parser = { src: re.source, i: 0, ci: re.flags.includes('i') };
    need = alternation(p).need;
    if (p.i !== p.src.length) return null;
  } catch {
    return null;
  }
  if (!need || need.some((s) => s.length < MIN_LITERAL)) return null;
  // a literal containing another is implied by it
  return need.filter((s) => !need!.some((o) => o !== s && o.length < s.length && s.includes(o)));
}

/** Character classes of the scan: lower-case ASCII letters with their capitals, other ASCII as is, the rest one class. */
const CLASS_OTHER = 0;

/**
 * Gates of a list of patterns, checked together in one pass over a text (an Aho-Corasick automaton
 * over the required literals of every pattern of the list). Patterns that cannot be gated soundly
 * this way (no required literal, case-sensitive letters, non-ASCII literals) always pass.
 */
export class LiteralGates {
  private readonly alphabet: number;
  private readonly classOf = new Uint8Array(128);
  private readonly delta: Int32Array;
  /** Per state: the patterns one of whose literals ends there. */
  private readonly outputs: Array<number[] | undefined>;
  private readonly always: Uint8Array;

  constructor(patterns: readonly RegExp[]) {
    this.always = new Uint8Array(patterns.length);
    const lits: Array<{ text: string; pattern: number }> = [];
    patterns.forEach((re, k) => {
      const need = requiredLiterals(re);
      const ok = need && need.every((l) => /^[\x00-\x7f]+$/.test(l)) && (re.flags.includes('i') || need.every((l) => !/[A-Za-z]/.test(l)));
      if (!ok) this.always[k] = 1;
      else for (const text of need!) lits.push({ text, pattern: k });
    });
    // classes: every ASCII character a literal uses, capitals folded onto their lower case
    let n = 1;
    const used = new Set(lits.flatMap((l) => [...l.text]));
    for (const ch of [...used].sort()) this.classOf[ch.charCodeAt(0)] = n++;
    for (let c = 65; c <= 90; c++) this.classOf[c] = this.classOf[c + 32]!;
    this.alphabet = n;
    // the trie
    const next: Array<Map<number, number>> = [new Map()];
    const out: Array<Set<number>> = [new Set()];
    for (const l of lits) {
      let s = 0;
      for (const ch of l.text) {
        const c = this.classOf[ch.charCodeAt(0)]!;
        let t = next[s]!.get(c);
        if (t === undefined) {
          t = next.length;
          next.push(new Map());
          out.push(new Set());
          next[s]!.set(c, t);
        }
        s = t;
      }
      out[s]!.add(l.pattern);
    }
    // failure links, breadth first, into a full transition table
    const states = next.length;
    this.delta = new Int32Array(states * n);
    const fail = new Int32Array(states);
    const queue: number[] = [];
    for (let c = 0; c < n; c++) {
      const t = next[0]!.get(c);
      if (t !== undefined) {
        this.delta[c] = t;
        queue.push(t);
      }
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q]!;
      for (const p of out[fail[s]!]!) out[s]!.add(p);
      for (let c = 0; c < n; c++) {
        const t = next[s]!.get(c);
        if (t !== undefined) {
          fail[t] = this.delta[fail[s]! * n + c]!;
          this.delta[s * n + c] = t;
          queue.push(t);
        } else this.delta[s * n + c] = this.delta[fail[s]! * n + c]!;
      }
    }
    this.outputs = out.map((o) => (o.size ? [...o] : undefined));
  }

  /** Per pattern: 0 when it cannot match anywhere in `text`, 1 when it may. */
  scan(text: string): Uint8Array {
    const may = this.always.slice();
    const { delta, classOf, outputs, alphabet } = this;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      s = delta[s * alphabet + (code < 128 ? classOf[code]! : CLASS_OTHER)]!;
      const o = outputs[s];
      if (o !== undefined) for (const k of o) may[k] = 1;
    }
    return may;
  }
}
