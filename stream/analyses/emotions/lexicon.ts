/**
 * The cues of each emotion signal: linguistic patterns of how people speak to a coding or service
 * agent (swearing, sighs, complaints about repetition, explicit negative statements about the
 * agent's work, plain corrections, confusion, distrust, impatience, resignation, thanks).
 *
 * A weight is the intensity the cue carries alone, on the scale of `score`: plain corrections sit
 * around 0.3 (they must stay below 0.5 even when two co-occur), an explicit complaint or a sigh
 * around 0.5–0.6, swearing 0.6–0.85. Patterns are general English, never phrases of one dataset.
 */
import type { EmotionFamily } from '../types.js';

export type CueKind =
  /** swearing, insults: much weaker when the speaker aims it at themselves */
  | 'profanity'
  /** an evaluation of a thing ("useless", "a mess"): full weight when aimed at the agent's work */
  | 'evaluation'
  /** a statement of the speaker's own state or of the agent's behaviour */
  | 'statement'
  /** a plain correction or redirection: stays mild however many there are */
  | 'correction';

export interface Cue {
  id: string;
  family: EmotionFamily;
  signal: string;
  kind: CueKind;
  weight: number;
  re: RegExp;
  /** A negator just before the match ("not frustrating", "no thanks") cancels the cue. */
  negatable?: boolean;
  /** Matched only at the start of a sentence (`re` is anchored there, without the g flag). */
  atStart?: boolean;
}

const F = 'frustration' as const;

/** Frustration. `re` is matched on masked text; every pattern has the g flag for exec loops. */
const FRUSTRATION: Cue[] = [
  { id: 'wtf', family: F, signal: 'anger', kind: 'profanity', weight: 0.8, re: /\bw\.?t\.?f\b/gi },
  { id: 'fuck', family: F, signal: 'anger', kind: 'profanity', weight: 0.85, re: /\bf+u+c+k+\w*|\bfck\w*|\bf\*+k\w*/gi },
  { id: 'shit', family: F, signal: 'anger', kind: 'profanity', weight: 0.65, re: /\b(bull)?shit(ty|s)?\b/gi },
  { id: 'bs', family: F, signal: 'anger', kind: 'profanity', weight: 0.6, re: /\bBS\b/g },
  { id: 'damn', family: F, signal: 'anger', kind: 'profanity', weight: 0.5, re: /\b(god)?damn(it)?\b|\bdammit\b/gi },
  { id: 'crap', family: F, signal: 'anger', kind: 'profanity', weight: 0.55, re: /\bcrap(py)?\b/gi },
  { id: 'ass', family: F, signal: 'hostility', kind: 'profanity', weight: 0.6, re: /\bmy ass\b|\bdumbass\b|\basshole\b|\bpain in the ass\b/gi },
  { id: 'sake', family: F, signal: 'anger', kind: 'profanity', weight: 0.7, re: /\bfor (god|freak|fuck|christ|heaven|pete)'?s'? sake\b|\bfor crying out loud\b|\bffs\b/gi },
  { id: 'the-hell', family: F, signal: 'anger', kind: 'profanity', weight: 0.75, re: /\b(why|what|how|where|who) the (hell|heck|f|fuck)\b|\bthe (hell|heck) (are|is|did|do|were) you\b/gi },
  { id: 'sigh', family: F, signal: 'exasperation', kind: 'statement', weight: 0.55, re: /\bu+g+h+\b|\ba+r+g+h+\b|\*sigh\*|\bje+e*z+\b|\bgee+z\b|\bsheesh\b|🤦|😤|😡|🤬|🙄/gi },
  { id: 'sigh-start', family: F, signal: 'exasperation', kind: 'statement', weight: 0.55, atStart: true, re: /^\W*sigh\b/i },
  { id: 'seriously', family: F, signal: 'exasperation', kind: 'statement', weight: 0.55, re: /\bseriously\s*\?|\bcome on\s*[!.,]|\bgive me a break\b|\bunbelievable\b/gi },
  { id: 'told-you', family: F, signal: 'exasperation', kind: 'statement', weight: 0.55, re: /\b(as|like|what) i (already |just |have |had )?(told|asked|taught|showed|instructed|explained to) you\b|\bi (already |just )?told you\b|\b(i'?ve|i have|i) (already |just )?explicitly (requested|asked|said|told|instructed)\b|\bhow many times\b/gi },
  { id: 'you-keep', family: F, signal: 'exasperation', kind: 'statement', weight: 0.55, re: /\byou (keep|kept) (on |not )?\w+ing\b|\bwe keep having\b|\b(keeps?|kept) (failing|breaking|happening|forgetting|ignoring|adding|doing)\b/gi },
  { id: 'again-bang', family: F, signal: 'exasperation', kind: 'statement', weight: 0.6, re: /(?<!\b(?:[Hh]i|[Hh]ello|[Hh]ey|[Tt]hanks|[Tt]hank you|[Ss]ee you|[Tt]alk to you|[Mm]eet you|[Ww]elcome back|[Bb]ack) )\b[Aa]gain\s*[?!]*!|\bAGAIN\b/g },
  { id: 'again-repeat', family: F, signal: 'exasperation', kind: 'statement', weight: 0.5, re: /\b(yet|once) again\b|\bagain and again\b|\bover and over\b|\b(for )?the (second|third|fourth|fifth|tenth|hundredth|umpteenth|nth|\d+(st|nd|rd|th)) time\b|\b(forg[eo]t\w*|ignor\w+|skipp\w+|broke|did it|did that|same mistake)( \w+){0,3} again\b/gi },
  { id: 'recurring', family: F, signal: 'exasperation', kind: 'statement', weight: 0.4, re: /\b(recurring|repeated|constant|endless)( \w+)? (failures?|mistakes?|issues?|problems?|errors?)\b|\bevery (single )?time\b/gi },
  { id: 'always-never', family: F, signal: 'exasperation', kind: 'statement', weight: 0.5, re: /\b(what|how) you always\b|\byou always\b|\byou never\b/gi },
  { id: 'you-still', family: F, signal: 'annoyance', kind: 'statement', weight: 0.45, re: /(?:^|[,.;:!?(]\s*|\b(?:and|but|so|now|why|yet|then|because)\s+)you (still|again)\b/gim },
  { id: 'still-not', family: F, signal: 'annoyance', kind: 'statement', weight: 0.35, re: /\bstill (not|doesn'?t|does not|isn'?t|is not|don'?t|won'?t|can'?t|broken|failing|fails|wrong|the same)\b/gi },
  { id: 'i-feel-bad', family: F, signal: 'annoyance', kind: 'statement', weight: 0.65, negatable: true, re: /\bi('m| am)( (so|really|very|getting|becoming|quite|a bit|pretty|super|extremely|seriously))* (frustrated|annoyed|irritated|angry|mad|pissed( off)?|upset|unhappy|fed up)\b/gi },
  { id: 'getting-tired', family: F, signal: 'exasperation', kind: 'statement', weight: 0.6, re: /\b(getting|gets|become|becoming|so|really) (really |very |so )?(tired|sick|weary) (of|by|with)\b|\bsick (and tired )?of\b|\bfed up\b|\bgetting on my nerves\b|\bdriv(es|ing) me (crazy|nuts|mad|insane)\b|\bi('ve| have) had (it|enough)\b/gi },
  { id: 'frustrating', family: F, signal: 'annoyance', kind: 'evaluation', weight: 0.55, negatable: true, re: /\b(frustrating|annoying|irritating|infuriating|maddening|exasperating|unacceptable)\b/gi },
  { id: 'hate', family: F, signal: 'anger', kind: 'statement', weight: 0.6, negatable: true, re: /\bi (really |truly |absolutely |just |so )?(hate|detest|loathe|can'?t stand)\b/gi },
  { id: 'dislike', family: F, signal: 'annoyance', kind: 'statement', weight: 0.45, negatable: true, re: /\bi (really |strongly |truly |do )?dislike\b/gi },
  { id: 'bothers', family: F, signal: 'annoyance', kind: 'statement', weight: 0.45, negatable: true, re: /\b(bothers?|bugs|irritates|annoys) me\b|\bi'?m bothered\b/gi },
  { id: 'waste', family: F, signal: 'annoyance', kind: 'evaluation', weight: 0.55, re: /\bwaste of (\w+ )?(time|tokens|money|credits|effort)\b|\bwast(ing|ed) (my |our |so much |a lot of )?(time|tokens|money|credits)\b/gi },
  { id: 'not-what-asked', family: F, signal: 'annoyance', kind: 'statement', weight: 0.45, re: /\bnot what i (asked|meant|said|wanted|requested|told you)\b|\bthat'?s not what i\b/gi },
  { id: 'what-doing', family: F, signal: 'annoyance', kind: 'statement', weight: 0.45, re: /\bwhat (are|were|r) (you|u) (doing|thinking)\b/gi },
  { id: 'you-broke', family: F, signal: 'anger', kind: 'statement', weight: 0.5, re: /\byou('ve| have| just)? (broke|broken|ruined|messed up|destroyed|wiped|nuked|trashed|screwed up|deleted everything)\b|\btrying to nuke\b/gi },
  { id: 'kidding', family: F, signal: 'hostility', kind: 'statement', weight: 0.6, re: /\b(are you|you'?re|you are) (kidding|joking|serious|crazy|insane|nuts|drunk|high|out of your mind)\b|\bwhat (are|were) you smoking\b/gi },
  { id: 'sarcastic-question', family: F, signal: 'hostility', kind: 'statement', weight: 0.6, re: /\bare you( \w+){1,4}\s*(\?+!+|!+\?+)/gi },
  { id: 'rhetorical', family: F, signal: 'annoyance', kind: 'statement', weight: 0.45, re: /\bhow (exactly |on earth )?is (this|that|it) (not |even |supposed |any )?\w+|\bwhat'?s with (all )?(the|these|this)\b|\bdo better\b|\bget it together\b|\bi can'?t believe (you|this|that)\b/gi },
  { id: 'sucks', family: F, signal: 'annoyance', kind: 'evaluation', weight: 0.5, negatable: true, re: /\bsucks?\b|\bhow dare you\b/gi },
  { id: 'derogatory', family: F, signal: 'annoyance', kind: 'evaluation', weight: 0.45, negatable: true, re: /\b(garbage|rubbish|nonsense|useless|pointless|pathetic|ridiculous|absurd|terrible|awful|horrible|atrocious|sloppy|careless|incompetent|dumb|stupid|idiotic|moronic|bogus|slop|clueless|lame|embarrassing)\b/gi },
  { id: 'mess', family: F, signal: 'annoyance', kind: 'evaluation', weight: 0.35, re: /\b(this|it|that)('s| is) a (total |complete |big )?mess\b|\b(what|such) a mess\b|\bmessed (it |this |that |things |everything )?up\b/gi },
  { id: 'ignored', family: F, signal: 'annoyance', kind: 'statement', weight: 0.45, re: /\b(silently|completely|totally|simply) (ignored|ignoring|skipped|missed|dropped)\b/gi },
  { id: 'you-didnt', family: F, signal: 'annoyance', kind: 'statement', weight: 0.4, re: /\byou (didn'?t|did not|haven'?t|have not|don'?t|do not|never) (listen|follow|read|pay attention|understand|answer|do what|even)\b/gi },
  { id: 'you-forgot', family: F, signal: 'annoyance', kind: 'correction', weight: 0.35, re: /\byou (forgot|missed|ignored|skipped|overlooked)\b/gi },
  { id: 'rushing', family: F, signal: 'annoyance', kind: 'statement', weight: 0.4, re: /\b(rush(ing|ed)?|run(ning)?|ran|jump(ing|ed)?) (ahead|around)\b|\brush(ing)? (in)?to\b|\bquite a jump\b/gi },
  { id: 'correction-start', family: F, signal: 'annoyance', kind: 'correction', weight: 0.3, atStart: true, re: /^\W*(no|nope|nah|wrong|stop|wait|w8|hold on|hang on|ehm|uhm|not (quite|really|that|like that))\b(?! (problem|worries|rush|need|thanks|idea|doubt)\b)/i },
  { id: 'i-meant', family: F, signal: 'annoyance', kind: 'correction', weight: 0.3, re: /\bi (meant|didn'?t mean|did not mean|didn'?t ask|did not ask|never asked|asked you to|wanted you to|was (being )?literal)\b/gi },
  { id: 'dont-do', family: F, signal: 'annoyance', kind: 'correction', weight: 0.25, re: /\b(don'?t|do not|stop|quit) (\w+ly )?(do|add|use|put|write|run|change|touch|create|commit|push|delete|remove|rush|make|modify|jump|say|try|invent|guess)\b/gi },
  { id: 'stop-ing', family: F, signal: 'annoyance', kind: 'correction', weight: 0.4, re: /\bstop \w+ing\b/gi },
  { id: 'wrong', family: F, signal: 'annoyance', kind: 'correction', weight: 0.35, re: /\b(that'?s|this is|it'?s|is|was|are) (just |all |completely |totally )?(wrong|incorrect|not right|not correct|not it)\b|\bdoesn'?t (look right|work|make sense)\b/gi },
  { id: 'should-have', family: F, signal: 'annoyance', kind: 'correction', weight: 0.3, re: /\byou (should(n'?t| not| have)|were supposed to|need(ed)? to)\b/gi },
  { id: 'disagree', family: F, signal: 'annoyance', kind: 'correction', weight: 0.25, re: /\bi (strongly |completely |totally )?disagree\b/gi },
];

const OTHER: Cue[] = [
  // "to avoid confusion", "this might be confusing for readers": a risk for others, not the speaker's state
  { id: 'confused', family: 'confusion', signal: 'confusion', kind: 'statement', weight: 0.45, negatable: true, re: /\bi('m| am)?( (so|really|very|a bit|getting|now|even|more|totally|completely))* (confused|lost|puzzled|baffled)\b|(?<!\b(might|may|could|would|will|can) (be|get|seem|look|become) )\bconfus(ing|ed)\b|(?<!\b(avoid|avoiding|prevent|preventing|reduce|reducing|cause|causes|causing|caused|create|creates|add|adds|less|minimi[sz]e) (any |some |more |the |further )?)\bconfusion\b|\bmakes no sense\b|\bwhat just happened\b|\bwhat do you mean\b|\b(am i|i'?m|i am|i must be) missing something\b|\bwhat am i missing\b|\bam i (still )?doing (something|it|this) wrong\b/gi },
  { id: 'dont-understand', family: 'confusion', signal: 'confusion', kind: 'statement', weight: 0.45, re: /\bi (still )?(don'?t|do not|can'?t|cannot|didn'?t) (understand|get it|follow|see why|quite get)\b|\bwhat (does|do) (this|that|it|these) mean\b|\bhow come\b/gi },
  /*
   * Not uncertainty: "not sure about the naming" voices a reservation about a proposal; "not sure if
   * you ran the linter", "dunno if you recall" ask about the agent; "I'm wondering if …" frames a
   * question. The speaker is weighing or asking, not lost.
   */
  { id: 'unsure', family: 'confusion', signal: 'uncertainty', kind: 'statement', weight: 0.35, re: /\b(i'?m|i am) (not (sure|certain)|unsure|uncertain)\b(?! (about|(if|whether|that) you)\b)|\bnot sure (if|whether|what|how|which|why|i (follow|understand|get))\b(?! you\b)|\bi (don'?t|do not) know( yet)?\b(?! (if|whether) you\b)|\bdunno\b(?! (if|whether) you\b)|\bno idea\b/gi },
  // "too much" overwhelms as a verdict on the situation ("this is too much"), not as an adverb ("took too much initiative")
  { id: 'overwhelm', family: 'confusion', signal: 'overwhelm', kind: 'statement', weight: 0.45, re: /\btoo (complex|complicated)\b|\b(it'?s|this is|that'?s|that is|this'?s|it is|getting|gets|becoming|all|way|bit) too much\b|\btoo much (for me|to (take in|follow|digest|process|handle|keep track of)|information|at once|going on)\b|\boverwhelm\w*|\bout of my depth\b|\bover my head\b|\banalysis paralysis\b|\btoo many (options|things|steps)\b/gi },
  { id: 'are-you-sure', family: 'distrust', signal: 'skepticism', kind: 'statement', weight: 0.45, re: /\bare you (sure|certain)\b|\bdid you (actually|really|even)\b|\bis (that|this) (really )?(true|right|correct)\s*\?|\breally\s*\?|\bi doubt\b|\bi (don'?t|do not) (believe|buy)\b|\bwhere did (you get (this|that)|(that|this|it|these|those) come from)\b|\bdid you really\b|\bhow (did|do) you (come up with|know)\b|\bwhat'?s the point of\b|\bi haven'?t seen you\b|\b(did|have) (you|we) (actually |really |even )?(verif|check|test|run|confirm)\w*\b[^.?!\n]{0,60}\?/gi },
  { id: 'trust', family: 'distrust', signal: 'loss_of_trust', kind: 'statement', weight: 0.5, re: /\b(can'?t|cannot|don'?t|do not|no longer) trust\b|\bhallucinat\w*|\b(made|making) (that|it|this|stuff|things) up\b|\blying\b|\bsuspicio(us|n)\b|\bafraid to let you\b|\b(want|need) to (be )?approv\w* (all|every)\b/gi },
  { id: 'urgent', family: 'impatience', signal: 'urgency', kind: 'statement', weight: 0.45, re: /\basap\b|\burgent(ly)?\b|\bright (now|away)\b|\bimmediately\b|\bhurry( up)?\b|\bquick(ly)?[!,.]|\btime[- ]sensitive\b/gi },
  { id: 'impatient', family: 'impatience', signal: 'impatience', kind: 'statement', weight: 0.45, re: /\bjust do it\b|\bget on with it\b|\balready\s*[!?]|\btedious\b|\bhow long\b|\btaking (so|too) long\b|\blet'?s move on\b|\bbikeshed\w*|\benough (already|talk|discussion)\b/gi },
  { id: 'disappointed', family: 'disappointment', signal: 'disappointment', kind: 'statement', weight: 0.45, negatable: true, re: /\bdisappoint\w*|\bi (expected|hoped for) (better|more)\b|\b(what a|such a) shame\b|\bshame that\b|\bunfortunately\b|\blet ?down\b|:-?\(|☹|😞|😢/gi },
  { id: 'resigned', family: 'disappointment', signal: 'resignation', kind: 'statement', weight: 0.5, re: /\bnever ?mind\b|\bforget (it|about it)\b|\bi'?ll (just )?do it myself\b|\bi give up\b|\bdoesn'?t matter\b|\bno point\b/gi },
  { id: 'whatever', family: 'disappointment', signal: 'resignation', kind: 'statement', weight: 0.5, atStart: true, re: /^\W*whatever\W*$/i },
  { id: 'thanks', family: 'satisfaction', signal: 'gratitude', kind: 'statement', weight: 0.5, negatable: true, re: /\b(thanks|thank you|thx|thanx|tysm|much appreciated|appreciate (it|that|this|you|the))\b|\bcheers\b|🙏/gi },
  { id: 'relief', family: 'satisfaction', signal: 'relief', kind: 'statement', weight: 0.5, re: /\bphew\b|\bat last\b|\bthank god\b|\bthat (worked|did it|fixed it)\b|\b(it )?works now\b|\bfinally (works|working|fixed|green|passing)\b/gi },
  { id: 'delight', family: 'satisfaction', signal: 'delight', kind: 'statement', weight: 0.45, negatable: true, re: /\b(great|perfect|awesome|excellent|amazing|brilliant|wonderful|fantastic|nice|lgtm|cool|sweet|beautiful|superb|impressive|hilarious|glad|happy(?! path)|love|loving|congrat\w*|proud of you)\b|\b(lol|haha+|lmao|rofl)\b|\b(well|nicely) done\b|\bgood (job|work)\b|\blooks good\b|\bspot on\b|\bwe'?re cooking\b|🎉|👍|😀|😄|❤️/gi },
];

export const CUES: readonly Cue[] = [...FRUSTRATION, ...OTHER];

/**
 * Praise for something the agent just did, right after a call failed or was declined: sarcasm
 * ("Great, you deleted the fixtures. Brilliant.").
 */
export const SARCASTIC_PRAISE = /^\W*(great|brilliant|wonderful|perfect|fantastic|awesome|nice|lovely|excellent|well done|good job)\W+(now |so )?you('ve| have)? (just |now |also |even )?\w+ed\b/i;

/** Words before a cue that negate it ("not frustrating", "no thanks", "never been better"). */
export const NEGATOR = /\b(not|no|never|n'?t|without|hardly|nothing|nobody|neither|nor|isn'?t|wasn'?t|aren'?t|don'?t|doesn'?t|didn'?t|won'?t|wouldn'?t)\s+((so|too|very|that|really|at all|even|a|the|bit)\s+){0,2}$/i;

/** All-caps words that are technical acronyms, not shouting. */
export const ACRONYMS = new Set(
  'API CLI SDK TDD BDD ATDD ATTD CI CD PR MR URL URI HTML CSS JS TS SQL DB JSON YAML YML XML CSV PDF EPUB UI UX OK LGTM TODO FIXME README MCP GH OS CPU GPU RAM SSD HTTP HTTPS SSH TLS AWS GCP IDE LLM AI ML NPM PIP IIRC IMHO BTW FYI AFAIK TL DR ASAP ID UUID EOF UTC GMT PST ETA PM AM MVP YAGNI DRY KISS SOLID GOOS CRUD REST RPC TCP UDP IP DNS VPN USB LOC PO QA N/A'.split(' '),
);

/** Capitalised refusals and outbursts that carry anger on their own ("NO!", "STOP", "WHY"). */
export const SHOUT_WORDS = new Set(['NO', 'NOPE', 'STOP', 'NOT', 'NEVER', 'WHY', 'WRONG', 'AGAIN', 'WTF', 'OMG', 'FFS', 'DON\'T', 'DONT', 'HELP']);

/** Adverbs that strengthen a nearby cue. */
export const INTENSIFIER = /\b(really|so|very|extremely|totally|completely|absolutely|utterly|greatly|strongly|super|incredibly|seriously)\b/i;

/** The speaker is the subject right before a swear word (swearing about one's own doing is not frustration at the agent). */
export const SELF_AIMED = /\b(i|i'm|i've|me|my|myself|we|we've|us|our)\b/i;
export const ADDRESSES_AGENT = /\b(you|your|you're|you've|yourself|u|claude|assistant|bot)\b/i;
export const SELF_BLAME = /\b(my bad|my mistake|my fault|sorry|oops|i messed up|i screwed up|i forgot|i was wrong)\b/i;
export const EXTERNAL = /\b(api error|server|network|internet|outage|rate limit|github|the (ci|build|os|system|app|website|site|service|vendor|provider|tool|library|framework|docs|documentation|platform))\b/i;
