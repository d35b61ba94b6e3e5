/**
 * The query role with the fix domain on a suite's own nats-server and chDB data directory, bound
 * to a given problems source and an injectable clock; keys for the admin, a member and another
 * tenant's admin.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { loadConfig, type Config } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import { createRuntime, type Runtime, type RoleHandle } from '../../core/runtime.js';
import { startQuery } from '../../query/main.js';
import type { ProblemSource } from '../../fixes/problem-source.js';
import { startNats, type TestNats } from './nats.js';
import { migratedDataDir } from './data-template.js';
import type { FixServices } from '../../fixes/services.js';
import * as assert from 'uvu/assert';

export interface FixSystem {
  rt: Runtime;
  config: Config;
  nats: TestNats;
  url: string;
  adminKey: string;
  memberKey: string;
  otherKey: string;
  /** Current time of the injectable clock (ms); `advance` moves it. */
  clock: { now: number; advance(ms: number): void };
  stop(): Promise<void>;
}

export async function startFixSystem(opts: { problems: ProblemSource; env?: Record<string, string> }): Promise<FixSystem> {
  const nats = await startNats();
  const adminKey = `test-bootstrap-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    DATA_DIR: migratedDataDir('th-fix-data-'),
    NATS_URL: nats.url,
    QUERY_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    TRACEHOUSE_BOOTSTRAP_KEY: adminKey,
    TRACEHOUSE_SECRET: 'test-secret-0123456789abcdef',
    FIX_PUBLIC_URL: 'http://tracehouse.test',
    FIX_GATE_SEEDS: '1',
    ...opts.env,
  };
  const config = loadConfig(env);
  const rt = await createRuntime(config, { log: createLogger(config.logLevel, {}, process.stderr) });
  await rt.keys.bootstrap(adminKey);
  const memberKey = (await rt.keys.create({ tenant: 'default', role: 'member' })).key;
  const otherKey = (await rt.keys.create({ tenant: 'acme', role: 'admin' })).key;
  const clock = {
    now: Date.now(),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const role: RoleHandle = await startQuery(rt, { port: 0, problems: opts.problems, now: () => clock.now });
  return {
    rt,
    config,
    nats,
    url: role.url!,
    adminKey,
    memberKey,
    otherKey,
    clock,
    async stop() {
      await role.close();
      await rt.close();
      await nats.stop();
    },
  };
}

/** Inserts conversations (one user message each, plus an assistant reply, and their conversation rows) straight into the store. */
export async function seedConversations(rt: Runtime, tenant: string, items: Array<{ id: string; user: string }>): Promise<void> {
  const rows = items.flatMap((c, i) => [
    { tenant_id: tenant, conversation_id: c.id, message_id: randomUUID(), ts: new Date(Date.now() - 60_000 + i).toISOString(), seq: 0, role: 'user', content: c.user },
    { tenant_id: tenant, conversation_id: c.id, message_id: randomUUID(), ts: new Date(Date.now() - 59_000 + i).toISOString(), seq: 1, role: 'assistant', content: 'I cannot help with that.' },
  ]);
  await rt.store.insert('messages', rows, { async_insert: 0 });
  const now = new Date().toISOString();
  await rt.store.insert('conversations', items.map((c) => ({ tenant_id: tenant, conversation_id: c.id, version: 1, message_count: 2, first_ts: now, last_ts: now })), { async_insert: 0 });
}

/**
 * The refund scenario several fix suites share: eight conversations asking for a refund, and a
 * support agent whose harness holds one system prompt (`support-system`) with a known baseline.
 */
export const REFUND_CONVERSATIONS = Array.from({ length: 8 }, (_, i) => `conv-refund-${i}`);
export const REFUND_GRAPH = {
  agents: [{ key: 'support' }],
  artifacts: [{ key: 'support/system-prompt', kind: 'prompt', source_path: 'prompts/support.md', prompt_key: 'support-system', tools: ['lookup_order'], keywords: ['refund', 'order'] }],
  relationships: [],
};
export const REFUND_BASELINE = 'You are a support agent for an online shop. Be polite and concise.';

/** Seeds the refund scenario into tenant `default`: its conversations, harness graph and prompt. */
export async function seedRefundScenario(sys: FixSystem, svc: FixServices): Promise<void> {
  await seedConversations(sys.rt, 'default', REFUND_CONVERSATIONS.map((id, i) => ({ id, user: `I want a refund for order ${1000 + i}, it arrived broken.` })));
  await svc.harness.sync('default', { graph: REFUND_GRAPH, dryRun: false });
  await svc.prompts.sync('default', [{ key: 'support-system', content: REFUND_BASELINE, sourcePath: 'prompts/support.md' }], { dryRun: false });
}

/**
 * Calls `advance` (one POST /fixes/:id/advance) until the returned fix's status satisfies `stop`,
 * at most `max` times, 100 ms apart; every answer must be 200. Returns the last fix.
 */
export async function advanceUntil(advance: () => Promise<{ status: number; body: any; text: string }>, stop: (status: string) => boolean, max = 80): Promise<any> {
  let f: any;
  for (let i = 0; i < max; i++) {
    const r = await advance();
    assert.is(r.status, 200, r.text);
    f = r.body;
    if (stop(f.status)) return f;
    await new Promise((res) => setTimeout(res, 100));
  }
  return f;
}
