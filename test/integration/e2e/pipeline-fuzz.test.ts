/**
 * The whole-pipeline fuzz on a seeded sample (bench/lib/pipeline-fuzz.ts): hostile bodies on every
 * route through ingest, JetStream and the stream role into ClickHouse. The full size (5,000 bodies
 * per route) runs from `node dist/bench/pipeline-fuzz.js`; FUZZ_PER_ROUTE / FUZZ_SEED change the
 * sample here.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { describeFuzz, runPipelineFuzz } from '../../../bench/lib/pipeline-fuzz.js';

const PER_ROUTE = Number(process.env.FUZZ_PER_ROUTE ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 17);

let ts: TestSystem;
test.before(async () => {
  ts = await startTestSystem({ roles: ['ingest', 'stream'], env: { INGEST_MAX_BACKLOG_MESSAGES: '1000000', ANALYZE_DEBOUNCE_MS: '500' } });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test(`${PER_ROUTE} hostile bodies per route: every acknowledged event stored exactly once, nothing of a rejected request, no dead letter`, async () => {
  const rt = ts.system.rt;
  const r = await runPipelineFuzz({ ingestUrl: ts.ingestUrl, adminKey: ts.adminKey, bus: rt.bus, natsUrl: rt.natsUrl, store: rt.store, perRoute: PER_ROUTE, seed: SEED });
  console.log(`  ${describeFuzz(r)}`);
  assert.equal(r.unexpected, [], 'only 200, 400, 404, 413, 415 or 503');
  for (const [route, c] of Object.entries(r.routes)) {
    assert.is(c.requests, PER_ROUTE, route);
    assert.ok((c.statuses['200'] ?? 0) > 0 && (c.statuses['400'] ?? 0) > 0, `${route}: both acknowledged and rejected bodies`);
  }
  assert.ok(r.publishedEvents > PER_ROUTE, 'events were acknowledged');
  assert.is(r.missing, 0, 'every acknowledged event stored');
  assert.is(r.duplicated, 0, 'none stored twice');
  assert.is(r.strays, 0, 'nothing stored that no acknowledged request sent');
  assert.is(r.publishedForRejected, 0, 'nothing published for a rejected request');
  assert.is(r.countMismatches, 0, 'each response counts what was published');
  assert.equal(r.deadLetters, [], 'the edge refused everything the store would refuse');
});

test.run();
