/**
 * Failure family of a failed call, from its statement first (the line that says what went wrong),
 * then the rest of the error text, the error type a producer gave, the exit code and the tool.
 * The first rule that fits wins; the order puts the specific families (a user's decision, a
 * policy, credentials, limits) before the broad ones (not found, invalid input), and the
 * fallbacks last (a shell that exited non-zero, a domain tool refusing a request).
 */
import type { FailureFamily, SnapshotToolCall } from '../types.js';
import type { Statement } from './statement.js';

export type RejectionKind = 'declined' | 'interrupted';

const DECLINED =
  /^(?:No \(tell \S+ what to do differently\)|User (?:rejected|declined|denied|cancell?ed)\b|The user doesn't want to (?:proceed|take this action)|The user (?:has )?(?:declined|rejected|denied)\b)|^[^\n]{0,80}\b(?:rejected|declined|denied|cancell?ed) by (?:the )?user\b/i;
const INTERRUPTED = /^(?:\[?Request interrupted by user|Interrupted by user|(?:Operation|Execution|Command) (?:was )?(?:interrupted|cancell?ed|aborted) by (?:the )?user|Aborted by user)/i;

/** Declined or interrupted by the user, from the permission decision or the result's first words. */
export function rejectionKind(call: SnapshotToolCall, body: string): RejectionKind | null {
  const head = body.trimStart().slice(0, 200);
  if (INTERRUPTED.test(head)) return 'interrupted';
  if (call.decision === 'reject' || DECLINED.test(head)) return 'declined';
  return null;
}

interface Rule {
  family: FailureFamily;
  re: RegExp;
}

/** Rules on the statement and the error type; in order. */
const RULES: readonly Rule[] = [
  { family: 'rate_limited', re: /rate.?limit|too many requests|\b429\b|\b529\b|overloaded|throttl|quota (?:exceeded|exhausted)|requests? per (?:second|minute|hour|day)|slow down/i },
  { family: 'auth_error', re: /unauthori[sz]ed|\b401\b|authenticat|not (?:logged|signed) in|log ?in required|invalid (?:api[ _-]?key|token|credentials)|(?:token|session|credentials?) (?:has )?expired|host key verification failed|bad credentials|publickey|access token|\bauth[ _]error/i },
  { family: 'permission_denied', re: /permission|\bforbidden\b|\b403\b|not (?:allowed|permitted)|operation not permitted|access (?:is )?denied|\bblocked\b|haven't granted|not granted|requires? (?:approval|elevated)|read-only file system|\bsandbox/i },
  { family: 'timeout', re: /timed? ?out|timeout|deadline exceeded|took too long/i },
  { family: 'network', re: /connection (?:refused|reset|closed|aborted)|could not resolve host|network is unreachable|no route to host|socket hang up|\bECONN\w+|\bENOTFOUND\b|\bEAI_AGAIN\b|getaddrinfo|\bSSL\b|\bTLS\b|certificate verify failed|\bDNS\b|bad gateway|\b50[234]\b|service unavailable|\bnetwork\b/i },
  { family: 'resource_exhausted', re: /no space left|out of memory|cannot allocate memory|exceeds? (?:the )?(?:maximum|max|limit)|exceeded (?:the )?(?:maximum|limit)|limit exceeded|too (?:large|long|big)|too many open files|\bkilled\b|heap|memory limit|disk quota|payload too large|\b413\b|context (?:length|window)/i },
  { family: 'build_or_type_error', re: /\berror TS\d+|\bTS\d{4}\b|\berror\[E\d+\]|\berror CS\d+|syntaxerror|compil(?:e|ation|er) (?:error|failed)|could not compile|build (?:error|failed)|failed to (?:build|compile)|type ?check|incompatible type|type error(?!:)|\blint|\bmypy\b|\beslint\b|\btsc\b|parse error|subprocess-exited-with-error|cannot find module|could not find a declaration/i },
  { family: 'not_found', re: /not found|no such|does ?n[o']t exist|not exist|\bENOENT\b|no matches found|did not match any|no (?:\w+ )?files? found|no module named|cannot find|can't find|could ?n[o']t find|unable to find|unable to locate|\b404\b|not (?:be )?located|no \w+ (?:named|found)|found no \w+|missing (?:file|directory|module|package)|bad source|does not contain any|no (?:such )?(?:table|column|interpreter)|no interpreter|unknown (?:command|file|table|column)|can't open file/i },
  { family: 'precondition_failed', re: /has not been read|read it first|must (?:first|be \w+ (?:before|first))|before (?:writing|editing|you can)|already exists|\bEEXIST\b|file exists|destination exists|not (?:yet )?initiali[sz]ed|\bconflict|\b409\b|\blocked\b|in use|externally.managed|could not determine|not a git repository|uncommitted changes|working tree|stale|modified since|precondition|not in a valid state|state (?:does not|doesn't) allow|already (?:running|in progress)/i },
  { family: 'invalid_input', re: /invalid|unexpected (?:argument|option|token|keyword|end)|unrecognized (?:argument|option|token|arguments)|illegal (?:option|argument)|unknown (?:option|argument|flag|parameter)|usage:|required (?:parameter|argument|field|property)|missing (?:required|parameter|argument|field)|must (?:be|have|contain|not)|expected .{0,40}(?:got|but|received)|validation ?error|syntax error|malformed|is a directory|not a directory|no changes to make|found \d+ matches|bad request|\b400\b|wrong (?:type|number)|cannot be directly executed|no input|not valid|out of range|cannot parse|could not parse|failed to parse|unsupported|not supported/i },
];

/** Generic tools: shells, file and search tools, sub-agents. Any other tool is a domain tool. */
const SHELL = /^(?:container\.exec|local_shell)$|(?:^|_)(?:bash|shell|sh|zsh|terminal|exec|execute|cmd|command|powershell)(?:_|$)/i;
const GENERIC =
  /^(?:read|write|edit|multiedit|update|create|delete|glob|grep|ls|list|search|find|fetch|webfetch|websearch|web_search|notebookedit|notebookread|task|agent|call|todowrite|todoread|update todos|read todos|str_replace\w*|view|open|apply_patch|patch|exitplanmode|bashoutput|killshell|mcp__.*)$/i;

export const isShellTool = (name: string) => SHELL.test(name.trim());
export const isDomainTool = (name: string) => name.trim() !== '' && !SHELL.test(name.trim()) && !GENERIC.test(name.trim());

/** Family of a failed call that the user did not reject. */
export function familyOf(call: SnapshotToolCall, st: Statement): FailureFamily {
  if (st.kind === 'tests_failed') return 'test_failure';
  if (st.kind === 'tests_none') return 'not_found';
  if (st.kind === 'check_failed') return 'build_or_type_error';
  const primary = `${call.errorType} ${st.line} ${st.text}`.trim();
  for (const r of RULES) if (r.re.test(primary)) return r.family;
  // the statement said nothing known: the error type, then the whole output
  const secondary = st.body.slice(0, 1500);
  if (/\b(?:assert(?:ion)?(?:error)?|expected .* to (?:equal|be)|tests? failed)\b/i.test(secondary)) return 'test_failure';
  if (st.kind === 'none' || isShellTool(call.toolName) || st.exitCode !== null) return 'command_failed';
  if (/^[A-Za-z_][\w.]*(?:Error|Exception)\b/.test(st.text)) return 'command_failed';
  // a domain tool that answered with a sentence of its own refused the request by its rules
  if (isDomainTool(call.toolName)) return 'business_rule';
  return 'other';
}
