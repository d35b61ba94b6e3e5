/**
 * The statement of a failure: the words in a tool's error text that say what went wrong. Results
 * carry much else: the harness's wrapper (`Error: `, `<tool_use_error>`, `<returncode>` envelopes,
 * `Exit code 1`), warnings and progress lines before the error, a traceback's frames, a test
 * runner's whole session, the rejected diff after "User rejected …". Templates are mined from the
 * statement only, so the same cause gives the same statement across tools and conversations.
 */
import { systemError } from './system-errors.js';

export type StatementKind =
  /** An error line of the output (or a system error reduced to its standard text). */
  | 'message'
  /** A test session that ran tests and failed. */
  | 'tests_failed'
  /** A test session that selected no test. */
  | 'tests_none'
  /** A checker that lists checks with dotted status lines and one of them failed (pre-commit style). */
  | 'check_failed'
  /** Nothing in the output says what went wrong (a bare "Error", plain output). */
  | 'none';

export interface Statement {
  kind: StatementKind;
  /** The statement text, unmasked; '' for `none`. */
  text: string;
  /** The output line the statement came from, before severity tags were removed ('' when none). */
  line: string;
  /** Exit code when the result states one (`<returncode>`, `Exit code N`, `exit code: N`), else null. */
  exitCode: number | null;
  /** The result text without its wrapper, for family rules that look beyond the statement. */
  body: string;
}

/** Words that make a line an error statement. */
export const ERROR_WORDS =
  /[a-z](?:Error|Exception)\b|\b(errors?|fail(?:s|ed|ure|ing)?|fatal|exception|denied|forbidden|unauthori[sz]ed|not found|no such|cannot|can't|could ?n[o']t|unable|invalid|illegal|unexpected|unrecognized|unknown|missing|refused|timed? ?out|timeout|blocked|rejected|not allowed|not permitted|exceed(?:s|ed)?|too (?:many|large|long)|does ?n[o']t exist|already exists|no (?:matches|files|module|tests?)|not enough|insufficient|conflict|violat\w*|abort(?:ed)?|panic|segmentation fault|killed|traceback|usage:|did not match|not available|haven't|has not been|no changes|found no \w+|no \w+ found)\b|×/i;

/** Lines that are never the statement: warnings, notices, progress, harness notes, truncation markers. */
const NOISE =
  /^(?:npm (?:warn|notice|WARN)\b|\[(?:notice|warn(?:ing)?|info|debug)\]|warning:|warn:|info:|debug:|hint:|tip:|note:|deprecat|(?:Pre|Post)ToolUse:|… \+\d+ lines|\.\.\. \+\d+ lines|\(ctrl\+\w|(?:Using|Creating|Activate|Resolved|Resolving|Building|Built|Downloading|Downloaded|Installing|Installed|Uninstalling|Prepared|Preparing|Collecting|Fetching|Compiling|Updating|Updated|Checking|Audited|Requirement already satisfied)\b|>\s*\S+@\S+ \w+$|>\s*(?:next|npm|node|tsc|vite|jest|pytest)\b)/i;

const TRACEBACK = /^\s*Traceback \(most recent call last\):/m;
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Fault)\b(?::.*)?$/;
const TEST_SESSION =
  /test session starts|^={3,} (?:FAILURES|ERRORS|short test summary info) ={3,}|^(?:FAILED|ERROR) \S+::|^\s*[.FEsxX]+\s+\[\s*\d+%\]|^Tests?:\s+\d+ failed|^Test Suites?:\s+\d+ failed|^--- FAIL: |^FAIL\s+\S+|^test result: FAILED|^\s*\d+ (?:tests? )?(?:failed|failing)\b|^Failures?:\s*$|^\s*Test Files\s+\d+ failed|^\d+ examples?, \d+ failures?|^FAILED \((?:failures|errors)=\d+/m;
const TESTS_NONE = /\bcollected 0 items\b|\b0 selected\b|\bno tests (?:ran|collected|found)\b|\bNo tests found\b|\btesting: warning: no tests to run\b/i;
const CHECK_FAILED = /^(.+?)\s*\.{3,}\s*(?:\([^)]*\)\s*)?(?:Failed|FAILED)\s*$/m;

/** Removes the harness's wrapper; returns the body and an exit code it stated. */
export function unwrap(text: string): { body: string; exitCode: number | null } {
  let s = text.replace(/\r\n?/g, '\n').trim();
  let exitCode: number | null = null;
  const rc = /^<returncode>(-?\d+)<\/returncode>\s*/.exec(s);
  if (rc) {
    exitCode = Number(rc[1]);
    s = s.slice(rc[0].length).replace(/^<output>\s*/, '').replace(/\s*<\/output>\s*$/, '');
  }
  for (let i = 0; i < 3; i++) {
    const before = s;
    s = s.replace(/^<tool_use_error>([\s\S]*?)(?:<\/tool_use_error>)?$/, '$1').trim();
    const exit = /^Exit code:? (-?\d+)\s*\n?/i.exec(s);
    if (exit) {
      exitCode = Number(exit[1]);
      s = s.slice(exit[0].length).trim();
    }
    s = s.replace(/^(?:Error|ERROR|error)(?:\s*:\s*|\s*\n)(?=\S)/, '');
    if (s === before) break;
  }
  s = fromJson(s);
  const stated = /(?:^|\n)\s*[-│]?\s*exit (?:code|status):? (-?\d+)/i.exec(s);
  if (exitCode === null && stated) exitCode = Number(stated[1]);
  return { body: s, exitCode };
}

const MESSAGE_KEYS = ['message', 'error_message', 'errorMessage', 'detail', 'error_description', 'description', 'reason', 'title', 'error', 'msg'];
const CODE_KEYS = ['code', 'status', 'status_code', 'statusCode', 'type'];

/**
 * An API's JSON error body (`{"error": {"code": 404, "message": "Not Found"}}`) stated as text:
 * "error 404: Not Found". Anything else is returned as it was.
 */
function fromJson(s: string): string {
  if (!/^\{[\s\S]*\}$/.test(s)) return s;
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch {
    // not JSON after all (a brace-delimited text): read as text
    return s;
  }
  const pick = (o: Record<string, unknown>, keys: readonly string[]) => keys.map((k) => o[k]).find((x) => typeof x === 'string' || typeof x === 'number');
  let o = v as Record<string, unknown>;
  if (o.error && typeof o.error === 'object' && !Array.isArray(o.error)) o = o.error as Record<string, unknown>;
  const message = pick(o, MESSAGE_KEYS);
  if (message === undefined) return s;
  const code = pick(o, CODE_KEYS);
  return code === undefined || code === message ? String(message) : `error ${String(code)}: ${String(message)}`;
}

/**
 * Lines of the body with terminal wrapping undone: a long line that does not end a sentence,
 * followed by one starting in lower case or with a quote, continues on it.
 */
function linesOf(body: string): string[] {
  const raw = body.split('\n').map((l) => l.replace(/^[\s│├╰╭└┌─▶]+/, '').trimEnd());
  const out: string[] = [];
  for (const line of raw) {
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.length >= 60 && !/[.:;!?]$/.test(prev) && /^[a-z'"`(]/.test(line)) out[out.length - 1] = `${prev} ${line.trim()}`;
    else out.push(line);
  }
  return out.filter((l) => l.trim() !== '');
}

/** The first sentence of a line (a statement's later sentences are advice, not cause). */
function firstSentence(line: string): string {
  const m = /^(.*?[a-z0-9)\]'"`>])[.!](?=\s+[A-Z(])/.exec(line);
  return (m ? m[1]! : line).trim();
}

const stripSeverity = (line: string) =>
  line.replace(/^\s*(?:×|✗|✘|❌|!|\*+)\s*/, '').replace(/^(?:error|fatal|ERROR|FATAL|Error)(?:\[[\w-]+\])?\s*:\s*(?=\S)/, '').trim();

/**
 * Extracts the statement of one error text. `output`: the text is a program's output (a shell
 * tool, or a result stating an exit code), where the error line may come after other lines; else
 * the text is a tool's own error message, whose first line is the statement.
 */
export function extractStatement(text: string, output = true): Statement {
  const { body, exitCode } = unwrap(text);
  const scan = output || exitCode !== null;
  const lines = linesOf(body);
  let raw = '';
  const mk = (kind: StatementKind, t: string): Statement => ({ kind, text: t, line: raw, exitCode, body });
  const content = lines.filter((l) => !NOISE.test(l.trim()));
  // an error line before a test session is why the session did nothing (a bad selector, a usage error)
  const sessionAt = lines.findIndex((l) => TEST_SESSION.test(l));
  const first = content[0];
  const firstIsError = first !== undefined && ERROR_WORDS.test(first) && (sessionAt < 0 || lines.indexOf(first) < sessionAt);
  if (sessionAt >= 0 && !firstIsError) return mk(TESTS_NONE.test(body) ? 'tests_none' : 'tests_failed', '');
  const check = CHECK_FAILED.exec(body);
  if (check) return mk('check_failed', check[1]!.replace(/\s*\([^)]*\)\s*$/, '').trim());
  if (TRACEBACK.test(body)) {
    const exception = [...content].reverse().find((l) => EXCEPTION_LINE.test(l.trim()));
    if (exception) return mk('message', exception.trim());
  }
  const idx = scan ? content.findIndex((l) => ERROR_WORDS.test(l)) : content.findIndex((l) => /[A-Za-z]{2,}/.test(l));
  const pick = idx >= 0 ? idx : content.findIndex((l) => /[A-Za-z]{2,}/.test(l.replace(/\S*[/\\]\S*/g, '')));
  if (pick < 0) return mk('none', '');
  raw = content[pick]!;
  const line = stripSeverity(raw);
  const standard = systemError(line);
  if (standard) return mk('message', standard);
  if (/^(?:error|failed|failure|fatal)?\s*$/i.test(line)) return mk('none', '');
  // "blocked by hook:" / "failed with:" introduce their reason on the next line
  let statement = line;
  if (/:\s*$/.test(line)) {
    const detail = content.slice(pick + 1, pick + 3).map((l) => stripSeverity(l)).join(' ');
    statement = `${line} ${firstSentence(detail)}`;
  }
  return mk('message', firstSentence(statement));
}
