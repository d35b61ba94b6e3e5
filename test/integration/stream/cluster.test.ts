import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectBus, type Bus } from '../../../core/nats.js';
import { startNatsCluster, type TestNats, type TestNatsCluster } from '../../helpers/nats.js';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { batchOf, conversationEvents, publishBatch } from '../../helpers/events.js';
import { counts, sleep } from './helpers.js';

let cluster: TestNatsCluster;
let ts: TestSystem;
let producer: Bus;

test.before(async () => {
  cluster = await startNatsCluster(3);
  await waitForJetStream(cluster.url);
  const shim: TestNats = { ...cluster.nodes[0]!, url: cluster.url, stop: () => cluster.stop() };
  // JetStream needs a meta leader before streams can be declared: retry the start for a while
  for (let attempt = 0; ; attempt++) {
    try {
      ts = await startTestSystem({ nats: shim, roles: ['stream', 'query'], env: { NATS_REPLICAS: '3', STREAM_ACK_WAIT_MS: '5000' } });
      break;
    } catch (err) {
      if (attempt > 40) throw err;
      await sleep(500);
    }
  }
  producer = await connectBus(cluster.url);
});
/** Probes until the cluster has a JetStream meta leader (closing every probe connection). */
async function waitForJetStream(url: string): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const nc = await connect({ servers: url.split(','), reconnect: false, timeout: 1000 }).catch(() => undefined);
    try {
      if (nc) {
        const jsm = await jetstreamManager(nc);
        await jsm.getAccountInfo();
        return;
      }
    } catch {
      // no meta leader yet
    } finally {
      await nc?.close();
    }
    await sleep(250);
  }
}

test.after(async () => {
  const t = Date.now();
  const step = (s: string) => process.env.DEBUG_CLUSTER && console.log(s, Date.now() - t);
  await producer?.close();
  step('producer');
  for (const r of ts?.system.roles ?? []) { await r.close(); step(r.name); }
  await ts?.stop();
  step('system');
  await cluster?.stop();
  step('cluster');
});

test('3-node cluster, replicated stream, stream leader killed during sustained publishing: every acknowledged event stored once', async () => {
  const info = await producer.jsm.streams.info('INGEST');
  assert.is(info.config.num_replicas, 3);
  const total = 80;
  const batches = Array.from({ length: total }, (_, i) => batchOf(conversationEvents(`cl-${i % 10}`, 2, i * 100_000)));
  let acked = 0;
  let retries = 0;
  const publishing = (async () => {
    for (const b of batches) {
      // a client retries until acknowledged, with the same Nats-Msg-Id: stored once
      for (;;) {
        try {
          await publishBatch(producer.js, b);
          acked++;
          break;
        } catch {
          retries++;
          await sleep(200);
        }
      }
      await sleep(10);
    }
  })();
  await eventually(async () => acked >= 25);
  const leader = (await producer.jsm.streams.info('INGEST')).cluster?.leader ?? 'n0';
  const victim = cluster.nodes[Number(leader.replace(/\D/g, '')) || 0]!;
  await victim.kill();
  await publishing;
  assert.is(acked, total);
  const settled = await eventually(async () => {
    const c = await counts(ts.system.rt.store);
    return c.events === total * 8 && c.conversations === 10 ? c : undefined;
  }, { timeoutMs: 60_000, intervalMs: 300 });
  assert.ok(settled, `not settled: ${JSON.stringify(await counts(ts.system.rt.store))} (publish retries ${retries})`);
  assert.is(settled!.messages, total * 2);
  assert.is(settled!.toolCalls, total * 2);
  // the conversation rows are recomputed by debounced analysis jobs after the last insert: wait for them
  const rolledUp = async () =>
    Number((await ts.system.rt.store.query<{ m: string }>(`SELECT sum(message_count) AS m FROM {{db}}.conversations FINAL`))[0]?.m ?? 0);
  await eventually(async () => (await rolledUp()) === total * 2, { timeoutMs: 30_000, intervalMs: 300 });
  assert.is(await rolledUp(), total * 2);
});

test.run();
