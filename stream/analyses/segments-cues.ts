/**
 * Lexical cues for segment boundaries, read from a person's turn and from the agent message
 * before it. Phrasings are generic English conversation markers, not tied to any product or
 * data set: explicit topic switches ("another question", "moving on", "by the way"), softer
 * sequencing ("now let's", "next,", "I also need"), continuations (answers, confirmations,
 * corrections, questions about what was just done), an agent's wrap-up ("let me know if…") and
 * commands that clear or condense the agent's context ("/clear", "/compact").
 */

/** Acknowledgements that often open a turn before the real content ("Thanks! Now …"). */
const ACK = /^\s*(?:(?:thanks|thank you|thx|great|perfect|awesome|excellent|cool|nice|good|ok|okay|alright|all right|got it|sounds good|lgtm|wonderful|fantastic|understood|fine|that's (?:great|perfect|all)|that works|that looks (?:great|good)|that(?:'s| is) (?:done|sorted|settled|fixed)|done)(?:\s+(?:so much|a lot|very much|for (?:that|your help|the help|helping(?: with that)?|checking|confirming|clarifying|taking care of (?:that|this))|again|then|now))*\s*[,.!;:—-]+\s*)+/i;

/** Unmistakable announcements of a new goal (weight 1). */
const STRONG = [
  /\b(?:new|another|different|separate|unrelated|other|next) (?:task|question|topic|issue|problem|request|thing|matter|subject|item)\b/i,
  /\b(?:switch(?:ing)?|chang(?:e|ing)) (?:gears|topics?|subjects?)\b/i,
  /\bswitching to\b/i,
  /\b(?:on (?:a |an )?(?:different|another|separate|unrelated) note|change of (?:topic|subject))\b/i,
  /\b(?:moving on|let'?s move on|move on to)\b/i,
  /\b(?:one more thing|something else|anything else i need|also wanted to ask|quick question|unrelated(?:ly)?)\b/i,
  /^(?:by the way|btw|oh,? (?:and|also))\b/i,
  /\bhelp (?:me )?with something else\b/i,
];

/** Sequencing phrases that often, not always, open a new goal (weight 0.5). */
const WEAK = [
  /^(?:now|next|then|also|additionally|finally|lastly|afterwards)\b[ ,]/i,
  /^(?:and )?(?:now|next) (?:let'?s|can|could|would|please|i|we)\b/i,
  /^let'?s (?:now |also )?(?:work on|look at|turn to|start|do|tackle|focus on|get to|switch)\b/i,
  /^(?:i|we) (?:also|now|next|additionally) (?:need|want|would like|'d like|have)\b/i,
  /^(?:i'?d|i would) (?:also |now )?like to\b(?! proceed| confirm| go ahead| keep| use)/i,
  /^(?:can|could|would) you (?:also|now|next|please also)\b/i,
  /^(?:i|we) (?:have|need|want) (?:another|a new|one more)\b/i,
];

/** Openings of a turn that continues the current goal. */
const CONTINUATION = [
  /^(?:yes|yeah|yep|yup|no|nope|nah|sure|correct|right|exactly|indeed|absolutely|confirmed?|agreed|definitely|of course)\b/i,
  /^(?:go ahead|proceed|please proceed|do it|do that|continue|go on|keep going|carry on|try again|retry|let'?s do (?:it|this|that)|go for it|sounds? good|ship it|commit|push)\b/i,
  /^(?:wait|w8|hold on|stop|hang on|careful|hmm+|ugh|huh|oops|whoa|wow)\b/i,
  /^(?:actually|instead|rather|but|however|still|again|hmm|well)\b/i,
  /^(?:i meant|i mean|what i meant|not (?:that|this|quite|yet)|that'?s not|this is not|that isn'?t|it'?s not)\b/i,
  /^(?:why|how come|what about|how about|what if|did you|didn'?t you|have you|haven'?t you|are you sure|do you|you (?:didn'?t|forgot|missed|did|said|are|were|keep))\b/i,
  /^(?:revert|undo|fix (?:it|that|this)|same|the (?:first|second|third|last|other|former|latter) (?:one|option)|option \w+|both|neither|either)\b/i,
  /^(?:that|this|it|these|those|they|there)\b(?!'s all)/i,
  /^\(?\d{1,2}[.):]\s/,
  /^(?:here(?:'s| is| are)|my (?:user|reservation|order|account|booking)? ?(?:id|number|name|email)\b)/i,
];

/** Agent phrasing that closes a piece of work or offers more help or a next step. */
const WRAP_UP = [
  /\b(?:let me know if|anything else|feel free to|is there anything|hope this helps|all set|safe travels|have a (?:great|good|nice) (?:day|trip|one|week))\b/i,
  /\b(?:successfully|has been (?:completed|done|created|updated|booked|cancel+ed|fixed|resolved|processed|committed|pushed)|have been (?:completed|done|created|updated|booked|cancel+ed|fixed|resolved|processed|committed|pushed)|is (?:now )?(?:complete|done|ready|fixed|resolved|working))\b/i,
  /\b(?:what (?:would you like|should we|do you want)(?: me)? to (?:do|work on|focus on|tackle|look at)|how (?:can|may) i (?:help|assist)|what'?s next)\b/i,
  /\b(?:would you like|do you want|shall i|should i|should we)\b[^?\n]{0,80}\b(?:next|else|another|other tasks?|continue with|move on)\b/i,
  /\bi(?:'ve| have) (?:now )?(?:successfully )?(?:added|created|updated|fixed|removed|committed|pushed|implemented|completed|finished|written|deleted|booked|cancel+ed|sent|scheduled)\b/i,
  /✅/,
];

/** The turn with leading acknowledgements removed ("Great, thanks! Now …" → "Now …"). */
export function withoutAck(turn: string): string {
  return turn.replace(ACK, '');
}

/** 1 for an explicit topic switch, 0.5 for a sequencing phrase, 0 otherwise. */
export function markerStrength(turn: string): number {
  const t = withoutAck(turn.trim());
  const head = t.slice(0, 160);
  if (STRONG.some((r) => r.test(head))) return 1;
  // sequencing phrases count at the start of the turn or of its second sentence
  const second = /[.!?]\s+(.{0,80})/.exec(head)?.[1] ?? '';
  if (WEAK.some((r) => r.test(t) || (second !== '' && r.test(second)))) return 0.5;
  return 0;
}

/** The turn opens like an answer, confirmation, correction or follow-up question. */
export function continuationCue(turn: string): boolean {
  const t = withoutAck(turn.trim());
  if (t === '') return true;
  return CONTINUATION.some((r) => r.test(t));
}

/** The agent's message ends a piece of work or offers further help. */
export function wrapUpCue(agentText: string): boolean {
  const tail = agentText.slice(-500);
  return WRAP_UP.some((r) => r.test(tail));
}

/** Slash commands of coding agents' consoles that clear or condense the context. */
const CONTEXT_RESET = /^\/(?:clear|compact|compress|new|reset)\b/i;

/** The command turn ("/clear", or its `<command-name>/compact</command-name>` record) resets the context. */
export function isContextReset(commandText: string): boolean {
  const t = commandText.trim();
  const tagged = /<command-name>\s*([^<]*)<\/command-name>/.exec(t)?.[1] ?? '';
  return CONTEXT_RESET.test(t) || CONTEXT_RESET.test(tagged.trim());
}
