/**
 * Seeded generator of coding-agent conversations with planted emotions: varied phrasings of each
 * family, plain and polite corrections, and hard negatives (negated emotion words, quoted
 * complaints, pasted stack traces and npm logs full of "error", "fatal", "failed", code with
 * "kill" and "abort", slash commands, self-blame). Agent turns carry tool calls; some fail or are
 * declined right before a complaint, so the cause can be checked. Output: direct-ingest events and
 * the truth of every user turn.
 */
import type { DirectEvent } from '../../stream/import/index.js';
import type { EmotionFamily } from '../../stream/analyses/types.js';

export interface PlantedTurn {
  conversationId: string;
  /** Zero-based index of the user message in its conversation (input order). */
  messageIndex: number;
  frustrated: boolean;
  families: EmotionFamily[];
  kind: string;
  /** Key of the call that failed or was declined just before this turn, when planted. */
  failedCallKey?: string;
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OBJ = ['the login form', 'the date parser', 'the CSV export', 'the retry logic', 'the config loader', 'the payment page', 'the unit tests', 'the migration', 'the search index', 'the README'];
const ACT = ['deleted the fixtures', 'rewrote the whole module', 'changed the public API', 'added another dependency', 'touched the lockfile', 'skipped the tests', 'reformatted every file', 'renamed the database columns'];
const INSTR = ['run the tests first', 'keep the old function name', 'use the existing helper', 'only change one file', 'write the test before the code', 'leave the schema alone', 'ask before deleting anything'];
const ALT = ['pytest', 'the v2 endpoint', 'a plain loop', 'the standard library', 'sqlite', 'a config flag', 'the builder pattern'];

type Pick = <T>(xs: readonly T[]) => T;
type Template = (p: Pick) => string;

interface Kind {
  kind: string;
  frustrated: boolean;
  families: EmotionFamily[];
  /** Planted right after a failed or declined call. */
  afterFailure?: boolean;
  templates: Template[];
}

const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

const KINDS: Kind[] = [
  {
    kind: 'frustrated',
    frustrated: true,
    families: ['frustration'],
    afterFailure: true,
    templates: [
      (p) => `this is the third time I've asked you to ${p(INSTR)}.`,
      (p) => `Are you kidding me? ${cap(p(OBJ))} is still broken!`,
      (p) => `WTF, why did you ${p(ACT)}?`,
      (p) => `No!! I said ${p(INSTR)}, not this.`,
      (p) => `you keep ignoring what I say. ${cap(p(INSTR))}.`,
      (p) => `again?! ${cap(p(OBJ))} fails again`,
      (p) => `Ugh. ${cap(p(OBJ))} is broken again.`,
      (p) => `This is useless, you broke ${p(OBJ)}.`,
      () => `I'm so frustrated with this, nothing you do works`,
      (p) => `For god's sake, just ${p(INSTR)}!`,
      (p) => `Great, you ${p(ACT)}. Brilliant.`,
      (p) => `How many times do I have to tell you to ${p(INSTR)}?`,
      () => `That's NOT what I asked for!`,
      (p) => `what the hell is this? you ${p(ACT)}`,
      () => `Are you even reading what I write?!`,
      (p) => `I told you to ${p(INSTR)}. Why is that so hard?`,
      (p) => `seriously? you ${p(ACT)} AGAIN`,
      (p) => `stop it. STOP. you ${p(ACT)} without asking`,
      () => `this is a total waste of my time`,
      (p) => `I hate it when you ${p(ACT)} without asking!`,
    ],
  },
  {
    kind: 'correction',
    frustrated: false,
    families: ['frustration'],
    afterFailure: true,
    templates: [
      (p) => `No, use ${p(ALT)} instead.`,
      (p) => `that's not quite right, I meant ${p(OBJ)}`,
      (p) => `no, I meant ${p(OBJ)}, not the other one`,
      (p) => `Wait, ${p(INSTR)}.`,
      (p) => `nope, don't change ${p(OBJ)}`,
      (p) => `That's wrong, ${p(OBJ)} should stay as it was.`,
      (p) => `you forgot ${p(OBJ)}`,
    ],
  },
  {
    kind: 'polite-correction',
    frustrated: false,
    families: [],
    templates: [
      (p) => `Could you ${p(INSTR)} instead?`,
      (p) => `Sorry, I should have been clearer: please use ${p(ALT)}.`,
      (p) => `Let's try ${p(ALT)} for ${p(OBJ)} instead.`,
      (p) => `I'd prefer ${p(ALT)} here, if that works.`,
      (p) => `Small change: ${p(INSTR)}.`,
    ],
  },
  {
    kind: 'confusion',
    frustrated: false,
    families: ['confusion'],
    templates: [
      (p) => `I don't understand what ${p(OBJ)} does now`,
      (p) => `I'm confused, why is ${p(OBJ)} needed?`,
      () => `what does that mean?`,
      () => `not sure I follow, can you explain it differently`,
      () => `this is getting too complicated for me`,
      (p) => `I'm not sure whether ${p(OBJ)} should change at all`,
      () => `how come it passes locally but not on the server?`,
    ],
  },
  {
    kind: 'distrust',
    frustrated: false,
    families: ['distrust'],
    templates: [
      (p) => `are you sure ${p(OBJ)} works?`,
      () => `did you actually run the tests?`,
      () => `I don't trust this output, it looks made up`,
      () => `where did you get that number?`,
      () => `really? it passed on the first try?`,
      () => `I think you are hallucinating that file`,
    ],
  },
  {
    kind: 'impatience',
    frustrated: false,
    families: ['impatience'],
    templates: [
      () => `hurry up please, the demo is in ten minutes`,
      () => `we need this asap`,
      (p) => `quickly, ${p(INSTR)}.`,
      () => `just do it already!`,
      () => `this is taking too long, let's move on`,
      () => `urgent: production is down`,
    ],
  },
  {
    kind: 'disappointment',
    frustrated: false,
    families: ['disappointment'],
    templates: [
      () => `that's disappointing`,
      () => `I expected better from this`,
      () => `never mind, I'll do it myself`,
      () => `forget it.`,
      () => `unfortunately that didn't help`,
      () => `what a shame, it was close`,
    ],
  },
  {
    kind: 'satisfaction',
    frustrated: false,
    families: ['satisfaction'],
    templates: [
      () => `thanks, that works!`,
      () => `perfect, exactly what I needed`,
      () => `great job`,
      () => `phew, it works now`,
      () => `awesome!`,
      () => `thank you so much`,
      () => `LGTM, ship it`,
      () => `nice, well done`,
    ],
  },
  {
    kind: 'neutral',
    frustrated: false,
    families: [],
    templates: [
      (p) => `please add a test for ${p(OBJ)}`,
      () => `run the build`,
      () => `what's next?`,
      () => `commit and push`,
      () => `ok`,
      () => `yes`,
      () => `YES, go ahead`,
      (p) => `Now let's look at ${p(OBJ)}.`,
      () => `Can you explain the diff?`,
    ],
  },
  {
    kind: 'hard-negative',
    frustrated: false,
    families: [],
    templates: [
      () => `not frustrating at all, take your time`,
      () => `no problem, I'll wait`,
      () => `I'm not angry, just asking which version you used`,
      () => `> this is useless, why does it keep failing?!\nA customer wrote that. Draft a polite reply.`,
      () => `The ticket says "WTF, the app is broken again!!". Please triage it.`,
      () => `Here's the output:\n\`\`\`\nError: fatal: failed to push some refs\nerror: failed to compile\n\`\`\`\ncan you look?`,
      () => `I got this:\nTraceback (most recent call last):\n  File "app.py", line 3, in <module>\nValueError: fatal failure\nplease fix it`,
      () => `\`\`\`bash\nkill -9 $(pgrep node) # abort everything!!\n\`\`\`\nadd this to the stop script`,
      () => `\`process.abort()\` should become a clean exit`,
      () => `npm ERR! code ELIFECYCLE\nnpm ERR! Failed at the build script. WTF?!\nplease fix the build`,
      () => `/clear`,
      () => `/model opus`,
      () => `oops, my bad, I gave you the wrong path`,
      () => `The error message "Permission denied!!" comes from the kernel. Add it to the docs.`,
      () => `Add a \`failed\` state and a \`fatal\` log level to the enum.`,
    ],
  },
];

/** Share of each kind among user turns. */
const WEIGHTS: Record<string, number> = {
  frustrated: 0.14,
  correction: 0.1,
  'polite-correction': 0.06,
  confusion: 0.08,
  distrust: 0.06,
  impatience: 0.05,
  disappointment: 0.05,
  satisfaction: 0.08,
  neutral: 0.24,
  'hard-negative': 0.14,
};

function pickKind(r: () => number): Kind {
  let x = r();
  for (const k of KINDS) {
    x -= WEIGHTS[k.kind]!;
    if (x <= 0) return k;
  }
  return KINDS[KINDS.length - 1]!;
}

/** `conversations` conversations of 4–30 messages, reproducible from `seed`. */
export function generateConversations(seed: number, conversations: number): { events: DirectEvent[]; truth: PlantedTurn[] } {
  const r = rng(seed);
  const pick: Pick = (xs) => xs[Math.floor(r() * xs.length)]!;
  const events: DirectEvent[] = [];
  const truth: PlantedTurn[] = [];
  const base = Date.parse('2025-03-01T10:00:00Z');
  for (let c = 0; c < conversations; c++) {
    const id = `gen-${seed}-${c}`;
    const turns = 2 + Math.floor(r() * 14);
    let index = 0;
    let clock = 0;
    const emit = (e: Omit<DirectEvent, 'conversation_id' | 'timestamp' | 'message_id'>) => {
      events.push({ conversation_id: id, timestamp: new Date(base + c * 3_600_000 + clock++ * 1000).toISOString(), message_id: `${id}:${index}`, ...e } as DirectEvent);
      return index++;
    };
    for (let t = 0; t < turns; t++) {
      const kind = pickKind(r);
      let failedCallKey: string | undefined;
      if (t > 0) {
        // the agent's turn: words, and sometimes a call that fails or that the user declines
        const callId = `${id}:call-${t}`;
        const fails = kind.afterFailure ? r() < 0.7 : r() < 0.15;
        emit({ role: 'assistant', content: [{ type: 'text', text: `I updated ${pick(OBJ)}.` }, { type: 'tool_use', tool_name: 'Bash', tool_use_id: callId, input: { command: 'npm test' } }] });
        const declined = fails && r() < 0.5;
        const result = !fails ? '12 passed' : declined ? 'No (tell Claude what to do differently)' : 'Error: 3 tests failed';
        emit({ role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: result, is_error: fails }] });
        if (fails) failedCallKey = callId;
      }
      const text = pick(kind.templates)(pick);
      const messageIndex = emit({ role: 'user', message: text });
      truth.push({ conversationId: id, messageIndex, frustrated: kind.frustrated, families: kind.families, kind: kind.kind, ...(failedCallKey ? { failedCallKey } : {}) });
    }
  }
  return { events, truth };
}
