/**
 * Verb–object phrases of a request ("change flight reservation", "fix failing tests"): what a
 * taxonomy label is made of. No tagger: a verb is a word in a request position — after "want to",
 * "need to", "help me", "can you", "please", "let's", at the start of a sentence when it is a known
 * task verb, or after "to" when it is one — and its object is the run of content words after it,
 * past determiners and possessives, up to a preposition, a function word or punctuation. Phrases
 * are keyed by stems (so "changing flights" and "change flight" count together) and shown in their
 * most frequent surface form.
 */
import { sentenceSpans } from '../text/prose.js';
import { stem, STOPWORDS, wordSpans } from '../text/tokens.js';

/** Common task verbs (base forms): accepted at a sentence start or after "to" without a cue. */
const TASK_VERBS = new Set(
  `add adjust analyze apply archive assign audit automate book build bump buy calculate call cancel change check clean clear
close commit compare compile configure connect convert copy create debug delete deploy design detect disable document
downgrade download draft drop edit enable explain export extend extract fetch find fix format generate get help implement
import improve install integrate investigate list load log look make merge migrate modify move optimize order organize parse
pay plan port prepare print publish pull push rebook record reduce refactor refund remove rename render reorganize repair
replace request reschedule reserve reset resolve restore restructure return review revert rewrite run save schedule search
select send set setup ship show simplify sort split start stop store summarize switch sync test track transfer translate
troubleshoot try undo update upgrade upload use validate verify view write`.split(/\s+/),
);

/** Word sequences after which the next word is read as a verb whatever it is. */
const CUES = [
  ['want', 'to'], ['wanted', 'to'], ['like', 'to'], ['need', 'to'], ['needs', 'to'], ['trying', 'to'], ['try', 'to'],
  ['have', 'to'], ['going', 'to'], ['hoping', 'to'], ['looking', 'to'], ['able', 'to'], ['how', 'to'], ['help', 'me'],
  ['help', 'us'], ['can', 'you'], ['could', 'you'], ['would', 'you'], ['will', 'you'], ['please'], ["let's"], ['lets'],
  ['you', 'to'], ['how', 'do', 'i'], ['how', 'can', 'i'], ['should', 'we'], ['we', 'should'],
];

/** Skipped between a verb and its object. */
const DETERMINERS = new Set('the a an my our your this that these those some all its their his her any every each both another few more'.split(' '));
/** Particles that belong to the verb ("set up", "look up", "figure out"). */
const PARTICLES = new Set(['up', 'out', 'down', 'back', 'off', 'over']);
/** Objects that are only a pronoun say nothing about the use case. */
const PRONOUNS = new Set(['it', 'them', 'this', 'that', 'me', 'us', 'you', 'him', 'her', 'something', 'anything', 'everything', 'one', 'what', 'which', 'how']);

export interface Phrase {
  /** Stems, space-separated: the counting key. */
  key: string;
  /** The words as written, lower-cased. */
  surface: string;
}

/** Counting words and quantifiers: "cancel two flights" names the flights, not the two. */
const QUANTITIES = new Set('two three four five six seven eight nine ten first second third last next several multiple both'.split(' '));

const isWordish = (w: string) => /^[\p{L}][\p{L}'-]*$/u.test(w) && w.length >= 2;

/**
 * A word that can name a thing: letters only, not a function word, and shaped like a word rather
 * than a code: a vowel, and no run of four consonants once the usual digraphs count as one letter
 * ("length" and "strength" pass; "mdclva", "phl" and "clt" are record and airport codes).
 */
export function isWordLike(w: string): boolean {
  if (!isWordish(w) || w.length < 3 || STOPWORDS.has(w) || DETERMINERS.has(w)) return false;
  const folded = w.replace(/th|ch|sh|ph|gh|ng|ck|wh|qu/g, 'K');
  return /[aeiouy]/.test(folded) && !/[b-df-hj-np-tv-xzK]{4}/.test(folded);
}

const isObjectWord = (w: string) => isWordLike(w) && !QUANTITIES.has(w);
/** Words that modify a noun and cannot end a phrase ("change upcoming" → wait for "flight"). */
const MODIFIERS = new Set(
  'larger smaller bigger higher lower longer shorter better new old outbound inbound upcoming outgoing incoming current recent existing other same different whole entire full final main original specific extra additional previous future latest earlier later cheaper cheapest faster fastest quickest earliest direct nonstop basic premium single double own whole particular certain'.split(' '),
);
/** Nouns ending in -ing (other -ing words are verbs or modifiers: "failing", "remaining"). */
const ING_NOUNS = new Set(
  'booking meeting setting settings building string warning mapping logging routing pricing shipping listing padding heading thing morning evening training testing parking seating billing recording drawing wedding funding landing housing ending rating ranking timing caching tracking monitoring onboarding processing formatting styling scheduling pairing handling spacing wording'.split(' '),
);
/** A phrase ends on a word that can be a head noun: not a modifier, an adverb or an -ing verb. */
const isHeadWord = (w: string) => !MODIFIERS.has(w) && !/ly$/.test(w) && (!/ing$/.test(w) || ING_NOUNS.has(w));

/** Verb–object phrases of a text, 1 to 3 object words each (every prefix of a longer object too). */
export function verbObjectPhrases(text: string): Phrase[] {
  const out: Phrase[] = [];
  for (const span of sentenceSpans(text)) {
    const sentence = text.slice(span.start, span.end);
    const ws = wordSpans(sentence);
    for (let i = 0; i < ws.length; i++) {
      const w = ws[i]!.word;
      if (!isWordish(w) || PRONOUNS.has(w) || DETERMINERS.has(w)) continue;
      const cued = CUES.some((parts) => i >= parts.length && parts.every((p, k) => ws[i - parts.length + k]!.word === p));
      const known = TASK_VERBS.has(w) && (i === 0 || ws[i - 1]!.word === 'to');
      if (!cued && !known) continue;
      if (cued && STOPWORDS.has(w) && !TASK_VERBS.has(w)) continue;
      out.push(...phrasesAt(sentence, ws, i));
    }
  }
  return out;
}

/** Punctuation between two word spans ends a phrase. */
const broken = (sentence: string, a: { end: number }, b: { start: number }) => /[,;:()[\]"“”/]|\s-\s/.test(sentence.slice(a.end, b.start));

function phrasesAt(sentence: string, ws: ReturnType<typeof wordSpans>, v: number): Phrase[] {
  let verb = ws[v]!.word;
  let j = v + 1;
  if (j < ws.length && PARTICLES.has(ws[j]!.word) && !broken(sentence, ws[v]!, ws[j]!)) verb += ' ' + ws[j++]!.word;
  while (j < ws.length && DETERMINERS.has(ws[j]!.word) && !broken(sentence, ws[j - 1]!, ws[j]!)) j++;
  const object: string[] = [];
  while (j < ws.length && object.length < 3) {
    const w = ws[j]!.word;
    if (!isObjectWord(w) || PRONOUNS.has(w) || broken(sentence, ws[j - 1]!, ws[j]!)) break;
    object.push(w);
    j++;
  }
  const phrases: Phrase[] = [];
  const verbKey = verb.split(' ').map(stem).join(' ');
  for (let n = 1; n <= object.length; n++) {
    const words = object.slice(0, n);
    if (!isHeadWord(words[n - 1]!)) continue;
    phrases.push({ key: `${verbKey} ${words.map(stem).join(' ')}`, surface: `${verb} ${words.join(' ')}` });
  }
  return phrases;
}

/** Content words of a text with their stems (for keywords): letters only, no stopwords. */
export function contentWords(text: string): Array<{ stem: string; surface: string }> {
  const out: Array<{ stem: string; surface: string }> = [];
  for (const { word } of wordSpans(text)) {
    if (!isObjectWord(word)) continue;
    out.push({ stem: stem(word), surface: word });
  }
  return out;
}
