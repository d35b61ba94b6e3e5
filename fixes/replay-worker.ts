/**
 * The reference replay worker (`tracehouse replay-worker`): speaks the replay protocol with a
 * scripted agent instead of a real one, so demos and tests get deterministic results.
 *
 * Scripted agent: a case with no scenario (no user message to replay) abstains; otherwise the
 * agent handles the scenario when its prompt carries every check phrase of the case
 * (case-insensitive) and fails when one is missing. The seed does not change the outcome.
 * A user's own worker replaces `scriptedOutcome` with a run of their agent harness. An item whose
 * replay throws is redelivered, and answered with outcome `error` after `maxAttempts` attempts,
 * so its run ends (in `error`) rather than waiting for it forever.
 */
import { randomUUID } from 'node:crypto';
import { AckPolicy, type Consumer, type JsMsg } from '@nats-io/jetstream';
import type { Bus } from '../core/nats.js';
import { isNotFound } from '../core/nats.js';
import type { Logger } from '../core/log.js';
import {
  REPLAY_PING_SUBJECT,
  REPLAY_PROTOCOL,
  REPLAY_WORK_STREAM,
  REPLAY_WORKERS_CONSUMER,
  type ReplayOutcome,
  type ReplayResult,
  type ReplayWorkItem,
  type ReplayWorkerHello,
} from './replay-protocol.js';

export function scriptedOutcome(item: Pick<ReplayWorkItem, 'case' | 'prompt'>): { outcome: ReplayOutcome; detail: string } {
  if (!item.case.scenario.trim()) return { outcome: 'abstain', detail: 'no scenario to replay' };
  const prompt = item.prompt.content.toLowerCase();
  const missing = item.case.checks.filter((c) => !prompt.includes(c.toLowerCase()));
  if (missing.length) return { outcome: 'fail', detail: `prompt lacks guidance on: ${missing.join(', ')}` };
  return { outcome: 'pass', detail: 'handled' };
}

/** Attempts of a work item whose replay throws before the worker answers it with outcome `error`. */
export const REPLAY_MAX_ATTEMPTS = 3;

export interface ReplayWorker {
  readonly workerId: string;
  /** Items replayed so far. */
  readonly handled: number;
  stop(): Promise<void>;
}

/** Durable shared consumer every worker pulls from (created by the first worker). */
export async function ensureWorkConsumer(bus: Bus): Promise<Consumer> {
  try {
    await bus.jsm.consumers.info(REPLAY_WORK_STREAM, REPLAY_WORKERS_CONSUMER);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await bus.jsm.consumers.add(REPLAY_WORK_STREAM, {
      durable_name: REPLAY_WORKERS_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      ack_wait: 60_000 * 1_000_000,
      filter_subject: 'replay.work.>',
      max_ack_pending: 1000,
    });
  }
  return bus.js.consumers.get(REPLAY_WORK_STREAM, REPLAY_WORKERS_CONSUMER);
}

export async function startReplayWorker(
  bus: Bus,
  opts: {
    log?: Logger;
    replay?: (item: ReplayWorkItem) => Promise<{ outcome: ReplayOutcome; detail: string; score?: number }>;
    kind?: string;
    /** Attempts of an item whose replay throws before it is answered with outcome `error` (default 3). */
    maxAttempts?: number;
    /** Delay before a failed item is redelivered (default 1000 ms). */
    retryDelayMs?: number;
  } = {},
): Promise<ReplayWorker> {
  const workerId = randomUUID();
  const maxAttempts = opts.maxAttempts ?? REPLAY_MAX_ATTEMPTS;
  const retryDelayMs = opts.retryDelayMs ?? 1000;
  const replay: (item: ReplayWorkItem) => Promise<{ outcome: ReplayOutcome; detail: string; score?: number }> = opts.replay ?? (async (item) => scriptedOutcome(item));
  const hello: ReplayWorkerHello = { protocol: REPLAY_PROTOCOL, worker_id: workerId, kind: opts.kind ?? 'scripted' };
  const sub = bus.nc.subscribe(REPLAY_PING_SUBJECT, {
    callback: (_err, msg) => {
      msg.respond(JSON.stringify(hello));
    },
  });
  const consumer = await ensureWorkConsumer(bus);
  let stopped = false;
  let handled = 0;
  const handle = async (m: JsMsg) => {
    let item: ReplayWorkItem;
    try {
      item = m.json<ReplayWorkItem>();
    } catch {
      m.term();
      return;
    }
    if (item.protocol !== REPLAY_PROTOCOL) {
      m.term();
      return;
    }
    const publish = async (r: { outcome: ReplayOutcome; detail: string; score?: number }) => {
      const result: ReplayResult = {
        protocol: REPLAY_PROTOCOL,
        run_id: item.run_id,
        case_id: item.case.case_id,
        arm: item.arm,
        seed: item.seed,
        outcome: r.outcome,
        score: r.score ?? (r.outcome === 'pass' ? 1 : 0),
        detail: r.detail,
        worker_id: workerId,
      };
      await bus.js.publish(item.result_subject, JSON.stringify(result), { msgID: `${item.result_subject}` });
      m.ack();
      handled++;
    };
    let outcome: { outcome: ReplayOutcome; detail: string; score?: number };
    try {
      outcome = await replay(item);
    } catch (err) {
      if (m.info.deliveryCount < maxAttempts) {
        opts.log?.warn({ err: (err as Error).message, run: item.run_id }, 'replay failed: redelivering');
        m.nak(retryDelayMs);
        return;
      }
      // the harness failed on every attempt: answer `error` so the run ends instead of waiting forever
      outcome = { outcome: 'error', detail: `replay failed ${m.info.deliveryCount} times: ${String((err as Error)?.message ?? err).slice(0, 200)}` };
    }
    try {
      await publish(outcome);
    } catch (err) {
      opts.log?.warn({ err: (err as Error).message, run: item.run_id }, 'replay result not published: redelivering');
      m.nak(retryDelayMs);
    }
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        const iter = await consumer.fetch({ max_messages: 50, expires: 1000 });
        for await (const m of iter) await handle(m);
      } catch (err) {
        if (stopped) break;
        opts.log?.warn({ err: (err as Error).message }, 'replay worker fetch failed: retrying');
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  })();
  return {
    workerId,
    get handled() {
      return handled;
    },
    async stop() {
      stopped = true;
      sub.unsubscribe();
      await loop;
    },
  };
}
