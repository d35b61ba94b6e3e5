import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';

/**
 * Nothing acknowledged to a client is lost by a clean stop: send while stopping, restart on the
 * same data, and every conversation whose request got 200 is stored, once.
 */
let ts: TestSystem;

test.after(async () => {
  await ts?.stop({ withNats: true });
});

async function send(url: string, key: string, i: number): Promise<number> {
  const events = Array.from({ length: 20 }, (_, j) => ({
    conversation_id: `graceful-${i}`,
    role: j % 2 ? 'assistant' : 'user',
    message: `message ${j} of request ${i}`,
    timestamp: new Date(Date.UTC(2026, 10, 1, 0, 0, 0, i * 100 + j)).toISOString(),
  }));
  try {
    const res = await fetch(`${url}/v1/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0; // refused or reset: not acknowledged
  }
}

test('send, stop while sending, restart, count: every acknowledged event is stored exactly once', async () => {
  ts = await startTestSystem();
  const statuses = new Map<number, number>();
  const inflight: Promise<void>[] = [];
  let i = 0;
  let refused = false;
  const sender = (async () => {
    // keep requests in flight until the listener closes (a first refusal), not a fixed number of
    // them: a stop slower than sending them all would otherwise let every one through
    for (; i < 4000 && !refused; i++) {
      const n = i;
      inflight.push(send(ts.ingestUrl, ts.adminKey, n).then((s) => {
        statuses.set(n, s);
        if (s !== 200) refused = true;
      }));
      if (n % 4 === 3) await new Promise((r) => setTimeout(r, 20));
    }
  })();
  // stop once some requests are acknowledged, while many others are still in flight
  const started = Date.now();
  while ([...statuses.values()].filter((x) => x === 200).length < 20 && Date.now() - started < 20_000) {
    await new Promise((r) => setTimeout(r, 10));
  }
  await ts.stop();
  await sender;
  await Promise.all(inflight);
  const acked = [...statuses].filter(([, s]) => s === 200).map(([n]) => `graceful-${n}`);
  assert.ok(acked.length > 0, 'some requests were acknowledged before the stop');
  console.log(`acknowledged ${acked.length} of ${statuses.size} requests around the stop`);
  assert.ok(acked.length < statuses.size, 'some requests were refused: the stop happened mid-stream');
  assert.ok([...statuses.values()].every((s) => s === 200 || s === 503 || s === 0), `only 200, 503 or refused: ${[...new Set(statuses.values())]}`);

  ts = await ts.restart();
  const store = ts.system.rt.store;
  const stored = await eventually(
    async () => {
      const rows = await store.query<{ conversation_id: string; n: string; uniq: string }>(
        `SELECT conversation_id, count() AS n, uniqExact(message_id) AS uniq FROM {{db}}.messages FINAL
         WHERE tenant_id = 'default' AND startsWith(conversation_id, 'graceful-') GROUP BY conversation_id`,
      );
      const have = new Set(rows.map((r) => r.conversation_id));
      return acked.every((c) => have.has(c)) ? rows : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  assert.ok(stored, 'every acknowledged conversation is stored after the restart');
  for (const r of stored!) {
    assert.is(r.n, '20', `${r.conversation_id} has its 20 messages`);
    assert.is(r.uniq, '20', `${r.conversation_id} has no duplicate`);
  }
  const [events] = await store.query<{ n: string; uniq: string }>(
    `SELECT count() AS n, uniqExact(event_id) AS uniq FROM {{db}}.events FINAL WHERE tenant_id = 'default' AND startsWith(conversation_id, 'graceful-')`,
  );
  assert.is(events!.n, events!.uniq, 'no event row stored twice');
  assert.ok(Number(events!.n) >= acked.length * 20);
});

test.run();
