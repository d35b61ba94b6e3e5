/**
 * Conversations of a retail support agent with planted root causes, for the problems evaluation:
 *
 * - `schema_mismatch` (5 %): the agent calls `update_shipping_address` with a field the tool does
 *   not accept; the call fails with invalid input, is retried, fails again, and the person reacts;
 * - `prompt_defect` (3 %): asked for complete code, the agent writes a stub and hands the rest back
 *   (laziness), and the person reacts;
 * - `wrong_claim` (4 %): after a successful cancellation the agent states a refund amount the
 *   recorded result contradicts, and the person says they cannot trust it;
 * - background noise: one failed lookup on a random tool with a random error in 12 % of
 *   conversations (sometimes with a sigh after it), frustration with something outside the
 *   conversation in 5 %, and clean conversations.
 *
 * Truth is by message: the message indexes each planted cause produced (the failing calls and their
 * results, the lazy messages, the wrong claim, the reactions to them).
 */
import type { DirectBlock, DirectEvent } from '../../stream/import/types.js';
import { rng, type Rng } from '../segments/random.js';

export type PlantedCause = 'schema_mismatch' | 'prompt_defect' | 'wrong_claim';
export const PLANTED_CAUSES: readonly PlantedCause[] = ['schema_mismatch', 'prompt_defect', 'wrong_claim'];

export interface GeneratedConversation {
  id: string;
  user_id: string;
  events: DirectEvent[];
  /** The planted cause, if any. */
  cause: PlantedCause | null;
  /** Message indexes the planted cause produced. */
  planted: number[];
  /** Message indexes of background noise. */
  noise: number[];
}

export const RATES: Readonly<Record<PlantedCause, number>> = { schema_mismatch: 0.05, prompt_defect: 0.03, wrong_claim: 0.04 };
export const NOISE_FAILURE_RATE = 0.12;
export const NOISE_MOOD_RATE = 0.05;

class Conv {
  events: DirectEvent[] = [];
  planted: number[] = [];
  noise: number[] = [];
  private call = 0;
  private t: number;
  constructor(readonly id: string, readonly userId: string, start: number) {
    this.t = start;
  }
  push(role: 'user' | 'assistant', body: { message?: string; content?: DirectBlock[] }): number {
    this.t += 20_000;
    this.events.push({ conversation_id: this.id, role, user_id: this.userId, timestamp: new Date(this.t).toISOString(), message_id: `${this.id}:${this.events.length}`, ...body });
    return this.events.length - 1;
  }
  user(text: string): number {
    return this.push('user', { message: text });
  }
  say(text: string): number {
    return this.push('assistant', { message: text });
  }
  /** A call and its result; returns [call message, result message]. */
  tool(name: string, input: unknown, result: unknown, isError = false, text?: string): [number, number] {
    const id = `call_${this.call++}`;
    const content: DirectBlock[] = text ? [{ type: 'text', text }] : [];
    content.push({ type: 'tool_use', tool_name: name, tool_use_id: id, input });
    const a = this.push('assistant', { content });
    const b = this.push('user', { content: [{ type: 'tool_result', tool_use_id: id, content: typeof result === 'string' ? result : JSON.stringify(result), is_error: isError }] });
    return [a, b];
  }
}

const STREETS = ['12 Elm Street', '4 Harbour Road', '77 Pine Avenue', '9 Mill Lane', '231 Oak Boulevard', '5 Station Square'];
const ORDER = (id: string, status: string, price: number, fee: number) => ({ order_id: id, status, items: [{ name: 'desk lamp', price }], shipping_fee: fee, payment_history: [{ method: 'card', amount: price + fee }] });

function opening(c: Conv, r: Rng, order: string): void {
  c.user(r.pick([`Hi, I have a question about order #${order}.`, `Hello! Can you help me with my order #${order}?`, `Hey there, it's about order #${order}.`]));
  c.say(r.pick(['Of course, let me look it up.', 'Sure, one moment while I check.', 'Happy to help, checking now.']));
}

function lookup(c: Conv, order: string, price: number, fee: number, status = 'processing'): void {
  c.tool('get_order_details', { order_id: order }, ORDER(order, status, price, fee));
}

const NOISE_TOOLS = ['search_products', 'get_user_details', 'list_user_orders', 'get_product_details', 'check_inventory', 'track_shipment', 'get_store_hours', 'calculate_shipping'];
const NOISE_ERRORS: Array<(r: Rng) => string> = [
  (r) => `Error: item P${r.int(100, 999)} not found`,
  () => 'Error: request timed out after 30 seconds',
  () => 'Error: 429 Too Many Requests, retry later',
  () => 'Error: permission denied for this account',
  () => 'Error: upstream service unavailable (503)',
  (r) => `Error: precondition failed: record ${r.int(10, 99)} is locked`,
];

function noiseFailure(c: Conv, r: Rng, hard = false): void {
  // the hard set's noise also falls on the planted tool, as often as on any other
  const tool = r.pick(hard ? [...NOISE_TOOLS, 'update_shipping_address'] : NOISE_TOOLS);
  const [, res] = c.tool(tool, { query: `q${r.int(1, 99)}` }, r.pick(NOISE_ERRORS)(r), true);
  c.noise.push(res);
  c.tool(tool, { query: `q${r.int(1, 99)}` }, { ok: true, results: [] });
  if (r.chance(0.3)) c.noise.push(c.user(r.pick(['Ugh, that took forever.', 'Hmm, this is slow today, annoying.', 'Seriously, why is this so slow?'])));
}

function clean(c: Conv, r: Rng, order: string, price: number, fee: number): void {
  lookup(c, order, price, fee, 'shipped');
  c.say(`Order #${order} has shipped and should arrive within ${r.int(2, 5)} days.`);
  c.user(r.pick(['Great, thanks!', 'Perfect, thank you.', 'Thanks, that is all I needed.']));
}

/** A reaction: none, or words outside the cue lists, when `quiet`. */
function react(c: Conv, r: Rng, quiet: boolean, loud: string[]): void {
  if (!quiet) {
    c.planted.push(c.user(r.pick(loud)));
    return;
  }
  if (r.chance(0.5)) c.planted.push(c.user(r.pick(['Hmm. Okay then.', 'I see. Well, that is not what I expected.', 'Right, I will check back later.'])));
}

function schemaMismatch(c: Conv, r: Rng, order: string, price: number, fee: number, quiet = false): void {
  const street = r.pick(STREETS);
  c.user(`I moved recently. Please change the shipping address of order #${order} to ${street}.`);
  lookup(c, order, price, fee);
  const err = `Error: invalid input: missing required field 'address_line1' (unexpected field 'address')`;
  c.planted.push(...c.tool('update_shipping_address', { order_id: order, address: street }, err, true, 'Updating the address now.'));
  if (r.chance(0.7)) {
    c.planted.push(...c.tool('update_shipping_address', { order_id: order, address: street, zip: '' }, err, true, 'Let me try that again.'));
  }
  react(c, r, quiet, [
    "This is ridiculous, it failed again! Why can't you just update the address?!",
    'Ugh, seriously? This is useless. I just want my address changed.',
    'What are you doing?! It keeps failing, I told you the new address already.',
    'Come on, this is so frustrating. Why does it keep failing?!',
  ]);
  if (!quiet && r.chance(0.5)) {
    c.planted.push(c.say('I apologize, I am unable to update the address at the moment.'));
    c.planted.push(c.user(r.pick(['Forget it, this is a waste of my time.', 'Unbelievable. I give up.', 'Useless. I will call the store instead.'])));
  }
}

function promptDefect(c: Conv, r: Rng, quiet = false): void {
  const what = r.pick(['email addresses', 'postal codes', 'phone numbers', 'order ids', 'coupon codes']);
  const fn = `validate_${what.split(' ')[0]!.replace(/s$/, '')}`;
  c.user(`Please write a function ${fn} in utils/validation.py that validates ${what}, covering every case we discussed.`);
  const [call] = c.tool('Write', { file_path: 'utils/validation.py', content: `def ${fn}(value):\n    if not value:\n        return False\n    # ... rest of the validation logic goes here\n    return True\n` }, 'File written: utils/validation.py', false, 'Writing the function now.');
  c.planted.push(call);
  c.planted.push(
    c.say(
      r.pick([
        `I've added ${fn} to utils/validation.py. I'll leave the remaining edge cases as an exercise for you.`,
        `${fn} is in place. The remaining cases are left as an exercise for the reader.`,
        `Done: ${fn} is written. I'll leave the rest of the checks as an exercise for you to fill in.`,
      ]),
    ),
  );
  react(c, r, quiet, [
    "Seriously? You didn't finish it. I asked for every case, not a stub!",
    "That's useless, it is just a placeholder. Why do you keep leaving work half done?!",
    'Ugh, I told you to cover every case. This is not what I asked for.',
  ]);
}

function wrongClaim(c: Conv, r: Rng, order: string, price: number, fee: number, quiet = false): void {
  c.user(`Please cancel order #${order}, I don't need it anymore.`);
  lookup(c, order, price, fee);
  const total = price + fee;
  c.tool('cancel_pending_order', { order_id: order, reason: 'no longer needed' }, { ...ORDER(order, 'cancelled', price, fee), payment_history: [{ method: 'card', amount: total }, { method: 'card', amount: -total }] });
  const wrong = total - r.pick([5, 7, 9, 11]);
  c.planted.push(c.say(`Your order has been cancelled, and a refund of $${wrong} has been processed to your card.`));
  react(c, r, quiet, [
    `That's wrong, I paid $${total}. I can't trust anything you tell me.`,
    `No, that's not right, it was $${total}. How can I trust you with this?`,
    `That amount is wrong, it should be $${total}. I don't believe you anymore.`,
  ]);
}

function mood(c: Conv, r: Rng): void {
  c.noise.push(c.user(r.pick(['Ugh, the delivery company lost another parcel this week, so frustrating.', 'I am so annoyed with the courier, they never ring the bell.', 'Honestly the weather ruined my whole day, sorry, anyway.'])));
  c.say('I am sorry to hear that. How can I help today?');
}

/** `n` conversations over the 14 days before `endMs`, seeded. */
/**
 * `hard`: noise at twice the rates, noise failures also on the planted tool (as often as on any
 * other, with the same random errors), a third of
 * the planted conversations with no reaction at all or a reaction in words no cue list holds, and
 * noise failures before the planted cause in the same conversation (a sigh after them is noise).
 */
export interface GenerateOptions {
  hard?: boolean;
}

export function generateProblemSet(seed: number, n: number, endMs = Date.parse('2026-06-15T00:00:00Z'), opts: GenerateOptions = {}): GeneratedConversation[] {
  const r = rng(seed);
  const hard = opts.hard === true;
  const out: GeneratedConversation[] = [];
  // the planted conversations are drawn exactly at their rates
  const slots: Array<PlantedCause | null> = Array.from({ length: n }, () => null);
  let k = 0;
  for (const cause of PLANTED_CAUSES) for (let i = 0; i < Math.round(RATES[cause] * n); i++) slots[k++] = cause;
  for (let i = slots.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [slots[i], slots[j]] = [slots[j]!, slots[i]!];
  }
  for (let i = 0; i < n; i++) {
    const id = `pc-${seed}-${String(i).padStart(4, '0')}`;
    const user = `cust_${r.int(1, Math.max(10, Math.round(n / 4)))}`;
    const start = endMs - 14 * 86_400_000 + Math.floor(((i + r.next()) / n) * 14 * 86_400_000) - 3_600_000;
    const c = new Conv(id, user, start);
    const order = `W${r.int(1000000, 9999999)}`;
    const price = r.pick([29, 39, 49, 59]);
    const fee = r.pick([8, 12]);
    const cause = slots[i]!;
    if (r.chance(NOISE_MOOD_RATE * (hard ? 2 : 1))) mood(c, r);
    opening(c, r, order);
    if (r.chance(NOISE_FAILURE_RATE * (hard ? 2 : 1))) noiseFailure(c, r, hard);
    const quiet = hard && cause !== null && r.chance(1 / 3);
    if (cause === 'schema_mismatch') schemaMismatch(c, r, order, price, fee, quiet);
    else if (cause === 'prompt_defect') promptDefect(c, r, quiet);
    else if (cause === 'wrong_claim') wrongClaim(c, r, order, price, fee, quiet);
    else clean(c, r, order, price, fee);
    out.push({ id, user_id: user, events: c.events, cause, planted: c.planted, noise: c.noise });
  }
  return out;
}
