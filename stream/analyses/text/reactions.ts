/**
 * How a person reacts to what the agent just did, read from their turn: closure (thanks, it
 * works, that's all), correction (no, that's wrong, I said …), withdrawal (never mind, forget
 * it), deferral (I'll look for it and get back to you) — and whether the turn carries a new
 * request. Generic English conversation phrasing, not tied to any product or data set. Also the
 * agent's statements of inability ("I'm unable to …"). Code and quotations are masked first, so
 * a quoted "no" or an error message is not the person speaking.
 */
import { maskQuoted } from './prose.js';

const CLOSURE = [
  /^(?:thanks|thank you|thx|ty|many thanks|much appreciated|appreciate it|i appreciate|perfect|great|awesome|excellent|wonderful|fantastic|brilliant|amazing|nice|cool|sweet|lovely|got it|understood|ok(?:ay)?|alright|all right|sounds good|looks good|lgtm|works|it works|that works|that worked|done|all good|all set|good|fine|noted|cheers)\b/i,
  /\b(?:that'?s (?:all|everything|it)(?: i (?:need(?:ed)?|wanted))?|that (?:will|should) be all|nothing else|no(?:thing)? more(?: questions)?|(?:that|this|it)(?:'s| is) (?:working|fixed|solved|resolved|perfect|exactly what i)|works (?:now|great|perfectly)|problem solved|you(?:'ve| have) been (?:very |so |really )?helpful|(?:really |truly )?appreciate (?:it|that|this|your help|the help|your assistance|all your))\b/i,
  /\b(?:thanks|thank you)(?: (?:so|very) much| a lot| again)?(?: for (?:your|the|all) (?:help|assistance|support))?\s*[.!]*\s*$/i,
];

/** Openings that contradict or redirect what the agent did. */
const CORRECTION = [
  /^(?:no|nope|nah|not quite|not really|wrong|incorrect)\b(?![,.!\s]*(?:thanks|thank you|that'?s (?:all|it|everything)|nothing|i'?m (?:good|fine|all set)|problem|worries|need|more))/i,
  /^(?:wait|hold on|hang on|stop|undo|revert)\b/i,
  /\b(?:that'?s not (?:what|right|correct|it)|that is not (?:what|right|correct)|not what i (?:asked|wanted|meant|said)|i (?:said|meant|asked for|told you)|you (?:didn'?t|did not|forgot|missed|ignored|misunderstood|got it wrong)|that'?s wrong|this is wrong|still (?:not|doesn'?t|broken|failing|wrong|the same)|(?:it|that|this) (?:didn'?t|did not|doesn'?t|does not) work)\b/i,
];

const WITHDRAWAL = [
  /\b(?:never ?mind|forget (?:it|about it|that)|don'?t bother|no need(?: to)?(?: bother)?|skip (?:it|that|this)|let'?s (?:stop|leave it|drop it)|i give up|i'?ll (?:do|handle|fix) it myself|not worth it|cancel (?:that|this) request)\b/i,
];

const DEFERRAL = [
  /\b(?:i'?ll|i will|let me)\s+(?:try to\s+|have to\s+|need to\s+|go\s+)?(?:find|look for|look it up|locate|check|search|dig|gather|get back|come back|reach out|contact|call|think(?: about it)?|talk to|ask)\b/i,
  /\b(?:get back to you|come back (?:later|tomorrow)|reach out again|try again later|contact (?:a |the )?(?:human|customer (?:service|support)|support|representative))\b/i,
];

/** A request: a question, or an imperative / wish addressed to the agent. */
const REQUEST = [
  /\?/,
  /^(?:please|pls|can you|could you|would you|will you|i need|i want|i'?d like|i would like|help me|let'?s|make|add|fix|change|update|book|cancel|create|remove|delete|show|find|check|tell me|give me|send|run|write|implement|modify)\b/i,
  /\b(?:i (?:also )?(?:need|want|would like|'d like) (?:to|you to|a|an|the)|can you|could you|please (?!proceed|go ahead|do\b))/i,
];

const INABILITY = [
  /\b(?:i'?m (?:unable|not able)|i am (?:unable|not able)|i can(?:'?t|not) (?:help|assist|access|provide|do|process|make|complete|perform|proceed|find|modify|change|cancel|book|offer|issue)|(?:i|we) (?:don'?t|do not) have (?:access|the ability|a way)|(?:is|are) not (?:possible|allowed|permitted|eligible)|unfortunately,? (?:i|we|this|that|it|your|the))\b/i,
];

/** Consent to act: an affirmative answer, or an instruction addressed to the agent. */
const GO_AHEAD = [
  /^(?:yes|yeah|yep|yup|sure|ok(?:ay)?|alright|all right|correct|confirm(?:ed)?|go ahead|please proceed|proceed|please do|do it|sounds good|that works|perfect|great|absolutely|definitely|of course)\b/i,
  /\b(?:go ahead|proceed|i confirm|please do|yes,? please|do it|let'?s do (?:it|that|this)|go for it|ship it)\b/i,
  /^(?:please|pls|can you|could you|would you|will you|go|make|add|fix|change|update|book|cancel|create|remove|delete|run|write|implement|modify|rename|move|install|refactor|apply|use|set|send|commit|push|deploy|try|test|build|edit|replace|revert|undo|continue|retry)\b/i,
];

/** The turn with code and quotations masked; the cues of one turn are asked in a row, so the last one is kept. */
let lastTurn = '';
let lastSpeech = '';
function speech(turn: string): string {
  if (turn !== lastTurn) {
    lastTurn = turn;
    lastSpeech = maskQuoted(turn).trim();
  }
  return lastSpeech;
}

/**
 * Each cue is asked of the same turns by several analyses of one conversation (threads, step
 * scores): answers are kept per text, in a bounded cache cleared when full.
 */
function remembered(fn: (turn: string) => boolean): (turn: string) => boolean {
  const cache = new Map<string, boolean>();
  return (turn) => {
    let v = cache.get(turn);
    if (v === undefined) {
      v = fn(turn);
      if (cache.size >= 1024) cache.clear();
      cache.set(turn, v);
    }
    return v;
  };
}

/** Consent to go on ("yes, please proceed … thank you!") continues the work rather than closing it. */
const CONSENT = /\b(?:proceed|go ahead|please do|do it|confirm|yes,? please|let'?s do)\b/i;

/** The turn closes the exchange: thanks, acceptance, "that's all". */
export const closureCue = remembered((turn) => {
  const t = speech(turn);
  return t !== '' && CLOSURE.some((r) => r.test(t)) && !CONSENT.test(t);
});

/**
 * The turn corrects or redirects the agent. After a question of the agent (`answering`), a plain
 * "no" is an answer, so only an explicit correction ("that's not what I asked") counts.
 */
export function correctionCue(turn: string, answering = false): boolean {
  return answering ? explicitCorrection(turn) : explicitCorrection(turn) || openingCorrection(turn);
}
const explicitCorrection = remembered((turn) => CORRECTION[2]!.test(speech(turn)));
const openingCorrection = remembered((turn) => CORRECTION[0]!.test(speech(turn)) || CORRECTION[1]!.test(speech(turn)));

/** The agent's message ends by asking the person something. */
export const asksQuestion = remembered((agentText) => {
  const t = speech(agentText);
  const tail = t.slice(Math.max(0, t.length - 300));
  return /\?\s*$/.test(tail) || /\?[^.!?]*$/.test(tail) || /\b(?:would you like|do you want|shall i|should i|please confirm|let me know if|could you (?:please )?(?:provide|confirm|tell))\b[^.]*$/i.test(tail);
});

/** The person drops the request. */
export const withdrawalCue = remembered((turn) => WITHDRAWAL.some((r) => r.test(speech(turn))));

/** The person leaves to do something first and will come back (the request stays unfinished). */
export const deferralCue = remembered((turn) => DEFERRAL.some((r) => r.test(speech(turn))));

/** The turn gives the agent a go-ahead: "yes, please proceed", or an instruction ("fix the test"). */
export const goAheadCue = remembered((turn) => GO_AHEAD.some((r) => r.test(speech(turn))));

/** The turn asks for something (a question or an imperative), beyond acknowledging. */
export const requestCue = remembered((turn) => {
  // the part after a leading acknowledgement ("Thanks! Can you also …")
  const rest = speech(turn).replace(/^(?:[^.!?]{0,40}?\b(?:thanks|thank you|great|perfect|ok(?:ay)?|got it)\b[^.!?]{0,20}[.!,]\s*)+/i, '');
  return REQUEST.some((r) => r.test(rest));
});

/** The agent says it cannot do what was asked. */
export const inabilityCue = remembered((agentText) => INABILITY.some((r) => r.test(speech(agentText))));
