/**
 * The pattern families of laziness detection and their confidences (docs/analyses.md
 * "Laziness"). Prose patterns are matched on agent text with code, quotations and block quotes
 * masked; code patterns on code the agent wrote (fenced blocks of its text, contents of its file
 * writing tool calls). Phrasings are generic English; nothing here names a product or data set.
 */

export interface PatternRule {
  pattern: string;
  re: RegExp;
  confidence: number;
  truncatedData?: boolean;
}

/** Comment openers of common languages (a placeholder is a comment standing in for code). */
const C = String.raw`(?:\/\/|#|\/\*|<!--|--|;;|%|\{\/\*)`;

/** Placeholders in code the agent wrote. */
export const CODE_RULES: PatternRule[] = [
  // "// ... rest of the code", "# ... existing code ...", "/* ... */ remaining methods"
  { pattern: 'placeholder_code', confidence: 0.85, re: new RegExp(String.raw`${C}[ \t]*(?:\.{3}|…)[ \t]*(?:the )?(?:rest|remaining|existing|other|more|previous|same|unchanged|original|your|additional|everything)\b[^\n]*`, 'i') },
  { pattern: 'placeholder_code', confidence: 0.8, re: new RegExp(String.raw`${C}[ \t]*(?:\.{3}|…)?[ \t]*(?:rest of (?:the )?(?:code|implementation|function|file|logic|class|methods?|component|tests?)|(?:existing|previous|original|other) (?:code|logic|implementation|methods?|functions?) (?:here|goes here|remains?|unchanged|stays)|(?:your|the) (?:code|logic|implementation) (?:goes )?here|(?:actual )?implementation (?:goes )?here|add (?:your |the )?(?:code|logic|implementation|remaining \w+) here|(?:same|similar) as (?:before|above)|unchanged (?:code|methods?|functions?))\b[^\n]*`, 'i') },
  { pattern: 'placeholder_code', confidence: 0.75, re: new RegExp(String.raw`${C}[ \t]*(?:TODO|FIXME|XXX)\b[:\s-]*(?:implement|add (?:the )?(?:logic|implementation|code)|complete|finish|fill in|write (?:the )?(?:logic|implementation|code)|handle (?:the )?(?:rest|remaining|other))\b[^\n]*`, 'i') },
  { pattern: 'placeholder_code', confidence: 0.8, re: /^[ \t]*pass[ \t]*#[ \t]*(?:TODO|implement|placeholder|fill|your code)[^\n]*/im },
  // a bare elision line standing for code: "    // ..." or "    ..." between statements
  { pattern: 'placeholder_code', confidence: 0.55, re: new RegExp(String.raw`^[ \t]*${C}[ \t]*(?:\.{3}|…)[ \t]*$`, 'm') },
  // explicit not-implemented stubs are weak alone: test-first work writes them on purpose
  { pattern: 'placeholder_code', confidence: 0.4, re: /\braise NotImplementedError\b|throw new Error\(\s*['"`]not implemented|\bunimplemented!\(\)|\btodo!\(\)/i },
];

/** Prose patterns of agent text (masked). */
export const PROSE_RULES: PatternRule[] = [
  { pattern: 'left_as_exercise', confidence: 0.9, re: /\b(?:left|leave|leaving)\b[^.!?\n]{0,60}?\b(?:as an? |for (?:an? )?)exercise\b|\bas an exercise (?:for|to) (?:the )?(?:reader|you)\b|\bexercise for the reader\b/i },
  { pattern: 'truncated_output', confidence: 0.65, re: /\b(?:i'?ll|i will|let me|i'?m going to) stop (?:here|there|at this point)\b|(?:^|[.!?]\s+)for (?:the sake of )?brevity,|\b(?:omit\w*|skip\w*|shorten\w*|truncat\w+|abbreviat\w+|left out|not (?:shown|included|listed))\b[^.\n]{0,30}\bfor (?:the sake of )?brevity\b|\bfor (?:the sake of )?brevity\b[^.\n]{0,30}\b(?:omit\w*|skip\w*|only (?:show|include|list)|not (?:show|include|list))/im },
  { pattern: 'truncated_output', confidence: 0.6, re: /\b(?:the )?(?:rest|remainder|remaining (?:\w+ ){0,2}?(?:code|parts?|cases|methods|functions|files|sections|steps|items|tests))(?: of (?:the )?\w+)? (?:is|are|has been|have been|was|were) (?:omitted|left out|truncated|not shown|elided|skipped)\b/i },
  { pattern: 'truncated_output', confidence: 0.55, re: /\b(?:and so on|and so forth) for (?:the )?(?:rest|remaining|other)\b|\b(?:do|repeat|apply|follow) the same (?:pattern|approach|steps?|thing) for (?:the )?(?:rest|remaining|other)\b|\bsimilarly for (?:the )?(?:rest|remaining|other)\b|\bi'?ll (?:leave|skip) the (?:rest|remaining)\b/i },
  { pattern: 'handed_back', confidence: 0.45, re: /(?<!\b(?:if|whether|when|once|in case|unless) )\byou(?:'ll| will| would)? (?:need|have) to (?:implement|write|complete|finish|fill in|code up|flesh out|wire up|hook up|add (?:the |your |any )?(?:logic|implementation|code|tests?|methods?|functions?|handling|validation|remaining|missing|rest))\b/i },
  { pattern: 'handed_back', confidence: 0.45, re: /\byou can (?:now |then )?(?:implement|complete|finish|fill in|flesh out|(?:add|write) (?:the )?(?:rest|remaining|missing|actual))\b/i },
  { pattern: 'handed_back', confidence: 0.55, re: /\bi(?:'ll| will)? (?:leave|let)\b(?![^.!?\n]{0,50}\b(?:decision|choice|call|preference)\b)[^.!?\n]{1,50}?\b(?:to|for|up to) you\b(?! to (?:decide|choose|review|confirm))|\b(?:is|are|it'?s) (?:up to you|left to you) to (?:implement|write|add|complete|finish|fill)\b/i },
  { pattern: 'refusal_deferral', confidence: 0.3, re: /\bi (?:can(?:'|no)t|cannot|am unable to|'?m unable to|won'?t be able to|'?m not able to) (?:do|complete|implement|finish|write|fix|build|create) (?:that|this|it|the|all)\b/i },
  { pattern: 'refusal_deferral', confidence: 0.3, re: /\b(?:let'?s|we can|i can|i'?ll|i will) (?:do|handle|address|tackle|implement|add|finish) (?:that|this|it|the rest|those|these|the remaining \w+) (?:later|in a (?:follow-?up|future|separate|later|next) (?:step|session|task|pr|iteration|change|commit))\b/i },
  { pattern: 'skipped_tests', confidence: 0.35, re: /\b(?:i |we )?(?:didn'?t|did not|haven'?t|have not|hasn'?t|has not|couldn'?t|could not|won'?t|will not|wasn'?t able to|was unable to) (?:yet )?(?:run|ran|execute|executed|write|written|add|added|verify with) (?:the |any |these |those )?(?:unit |integration )?(?:tests?|test suite|specs?)\b|\bwithout (?:running|writing|executing|adding) (?:the |any )?(?:unit |integration )?(?:tests?|test suite|specs?)\b|\b(?:i |we )?skip(?:ped|ping)? (?:the |running the |writing )?tests\b/i },
  { pattern: 'truncated_data', confidence: 0.6, truncatedData: true, re: /\b(?:the |this |that )?(?:output|result|response|log|logs|file|data|content|listing|diff|page) (?:was|is|got|has been|appears to be|seems) (?:truncated|cut off|clipped|incomplete)\b|\b(?:output|result|response) (?:was |is )?too (?:long|large) to (?:show|display|read)\b/i },
];

/** Completion claims of the agent's own work ("I've fixed", "now works", "all tests pass"). */
export const COMPLETION_CLAIM = /\b(?:i'?ve|i have|i(?= (?:fixed|resolved|implemented|completed|finished)\b)) (?:now |successfully |also )?(?:fixed|resolved|implemented|completed|finished)\b|\b(?:is|are|should be) now (?:fixed|working|resolved|complete|done|passing)\b|\b(?:now|should now) works?(?: correctly| properly| as expected| fine)?\b|\bworks? (?:correctly |properly |fine )?now\b|\ball (?:the )?(?:\w+ )?tests (?:now )?(?:pass|passed|passing|are passing|are green)\b|\beverything (?:works|is working|is fixed)\b|\bthe (?:bug|issue|error|problem|crash) (?:is|has been) (?:fixed|resolved|gone)\b/i;

const WORK_VERB = String.raw`(?:fix|implement|add|write|create|build|update|change|refactor|make|modify|remove|rename|debug|handle|support|port|migrate|convert|generate|complete|finish|set up|setup|clean up|extract|move|replace)`;

/** A person asking the agent for work: an imperative, or a request addressed to the agent. */
export const CODE_REQUEST = new RegExp(
  String.raw`(?:^|[.!?;:]\s+|\n\s*)(?:(?:please|now|then|ok(?:ay)?|so|and|also),?\s+)*${WORK_VERB}\b|\b(?:can|could|would|will) you (?:please |also |now )?${WORK_VERB}\b|\b(?:please|let'?s|go ahead and|i (?:want|need|would like|'d like) you to|you should|try to) ${WORK_VERB}\b`,
  'i',
);

/** A request that carries its own evidence: a report that it worked, or pasted output (5+ lines). */
export const EVIDENCE_IN_REQUEST = /\b(?:i'?ve|i have|i) (?:verified|tested|tried|ran|confirmed|checked)\b|\b(?:it|this|that) (?:works|worked|passes|passed)\b|(?:\n[^\n]*){5}/i;

/** A person asking for tests to be written or run. */
export const TEST_REQUEST = /\b(?:run|write|add|create|execute|make sure|ensure|verify|check)\b[^.?!\n]{0,40}\btests?\b|\btests? (?:should|must) pass\b|\bwith tests\b/i;

/** A person asking for placeholders, stubs or skipped tests on purpose. */
export const REQUESTED_PLACEHOLDER = /\b(?:todo|placeholder|stub|stubs|skeleton|scaffold|boilerplate|outline|pseudo-?code|template|sketch|skip(?:ped)?|mark (?:it |them )?as skipped|no tests|don'?t (?:run|write) tests)\b/i;

/** A call that ran tests or a build. */
export const TEST_OR_BUILD_CALL = /\b(?:test|tests|pytest|jest|vitest|mocha|spec|unittest|rspec|phpunit|tox|nox|go test|cargo (?:test|build|check)|npm (?:run )?(?:test|build)|yarn (?:test|build)|pnpm (?:test|build)|make(?: check| test)?|tsc|mvn|gradle|ctest|build)\b/i;

/** Test skip markers in code. */
export const SKIP_MARKER = /@pytest\.mark\.skip\b|\b(?:it|test|describe)\.skip\(|\bx(?:it|describe)\(|@Disabled\b|@Ignore\b|\bt\.Skip\(|#\[ignore\]/;

/** Tool results whose text says what the agent saw was cut. */
export const TRUNCATED_RESULT = /\[(?:output )?truncated[^\]]*\]|\((?:output )?truncated\)|<response clipped>|\boutput (?:was )?truncated\b|\b\d+ (?:more )?(?:lines|characters|bytes) (?:truncated|omitted)\b|\btoo (?:long|large)[^.\n]{0,30}(?:truncated|omitted)/i;
