/**
 * What the raw tau-bench trajectories say, read without any of our analysis code (RULES.md): the
 * user id, the reservation ids and the options of state-changing calls, each with the message at
 * which it was first established. Message i of a trajectory is message i of its conversation (the
 * importer keeps one event per message, in order).
 */

interface RawMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ function: { name: string; arguments: string } }>;
}

export interface Fact {
  key: string;
  value: string;
  /** First message that established the value. */
  msgIndex: number;
}

export interface Truth {
  userId: Fact | null;
  reservations: Fact[];
  /** Scalar arguments of state-changing calls, at the last such call that set each key. */
  options: Fact[];
  /** The last person turn says thanks / that is all (ignoring the simulator's stop marker). */
  endsWithThanks: boolean;
  /** The conversation was handed to a person. */
  handedOff: boolean;
}

const WRITE = /^(?:book|cancel|update|send|modify|exchange|return)_/;

const argsOf = (c: { function: { arguments: string } }): Record<string, unknown> => {
  try {
    return JSON.parse(c.function.arguments) as Record<string, unknown>;
  } catch {
    return {};
  }
};

const escape = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** First message where the value is said by the user (as a whole token, not inside an e-mail), used in a call, or returned by a state-changing call. */
function firstMention(traj: readonly RawMessage[], value: string): number {
  const token = new RegExp(`(?<![\\w@.#-])${escape(value)}(?![\\w@-])`);
  let lastCall = '';
  for (let i = 0; i < traj.length; i++) {
    const m = traj[i]!;
    if (m.role === 'user' && token.test(m.content ?? '')) return i;
    if (m.role === 'assistant') {
      for (const c of m.tool_calls ?? []) if (c.function.arguments.includes(value)) return i;
      lastCall = m.tool_calls?.[m.tool_calls.length - 1]?.function.name ?? '';
    }
    if (m.role === 'tool' && WRITE.test(lastCall) && (m.content ?? '').includes(`"${value}"`)) return i;
  }
  return -1;
}

export function truthOf(traj: readonly RawMessage[]): Truth {
  const calls = traj.flatMap((m, i) => (m.tool_calls ?? []).map((c) => ({ i, name: c.function.name, args: argsOf(c) })));
  const user = calls.find((c) => typeof c.args.user_id === 'string');
  const userId = user ? { key: 'user_id', value: String(user.args.user_id), msgIndex: firstMention(traj, String(user.args.user_id)) } : null;
  const reservationValues = new Set<string>();
  for (const c of calls) if (typeof c.args.reservation_id === 'string') reservationValues.add(c.args.reservation_id);
  traj.forEach((m, i) => {
    const previous = traj[i - 1];
    const call = previous?.tool_calls?.[previous.tool_calls.length - 1]?.function.name ?? '';
    if (m.role === 'tool' && /^book_/.test(call)) {
      const created = /"reservation_id":\s*"([^"]+)"/.exec(m.content ?? '')?.[1];
      if (created) reservationValues.add(created);
    }
  });
  const reservations = [...reservationValues].map((value) => ({ key: 'reservation_id', value, msgIndex: firstMention(traj, value) }));
  const options = new Map<string, Fact>();
  for (const c of calls) {
    if (!WRITE.test(c.name)) continue;
    for (const [k, v] of Object.entries(c.args)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') options.set(k, { key: k, value: String(v), msgIndex: c.i });
    }
  }
  const people = traj.filter((m) => m.role === 'user').map((m) => (m.content ?? '').replace(/#+STOP#+/g, '').trim()).filter(Boolean);
  const last = people[people.length - 1] ?? '';
  return {
    userId,
    reservations,
    options: [...options.values()],
    endsWithThanks: /\b(?:thanks|thank you|that'?s all)\b/i.test(last),
    handedOff: calls.some((c) => /transfer_to_human/.test(c.name)),
  };
}
