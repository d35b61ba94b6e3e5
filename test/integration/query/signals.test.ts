/**
 * GET /emotions, GET /hallucinations and the overview's frustration KPIs over rows written straight
 * into the analysis tables (two runs: replaced rows and tombstones), against expectations computed
 * from the seed model; tenant isolation; summaries flowing to the list, context and overview.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { assertMatchesSchema } from './fixtures/schema-check.js';
import { DAY, insertSignalDataset, MAIN, newestFirst, OTHER, signalDataset, type Emotion, type Finding, type SignalDataset, type Signals } from './fixtures/signals.js';

let ts: TestSystem;
let now: number;
let d: SignalDataset;
let otherKey: string;

const get = async (path: string, key = ts.adminKey) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  if (r.status === 200) assertMatchesSchema(path, r.body);
  return r;
};
const ok = async (path: string, key = ts.adminKey) => {
  const r = await get(path, key);
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.body;
};

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'] });
  now = Date.now();
  d = signalDataset(now);
  await insertSignalDataset(ts.system.rt.store, d);
  otherKey = (await ts.system.rt.keys.create({ tenant: OTHER, role: 'member', scopes: ['read'] })).key;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

// ---- expectations from the seed model
interface EmotionFilter { tenant?: string; family?: string; signal?: string; conv?: string; sinceMs?: number; env?: string; minScore?: number }
function expectEmotions(f: EmotionFilter = {}): Emotion[] {
  return d.emotions
    .filter((x) => x.tenant === (f.tenant ?? MAIN) && (!f.family || x.family === f.family) && (!f.signal || x.signal === f.signal))
    .filter((x) => (!f.conv || x.conv === f.conv) && x.atMs >= (f.sinceMs ?? 0) && (!f.env || x.env === f.env) && x.score >= (f.minScore ?? 0))
    .sort(newestFirst((x) => x.signal));
}
const emotionIds = (xs: { conv?: string; conversation_id?: string; idx?: number; message_index?: number; signal: string }[]) =>
  xs.map((x) => `${x.conv ?? x.conversation_id}/${x.idx ?? x.message_index}/${x.signal}`);

function expectFrustrations(f: { tenant?: string; sinceMs?: number; env?: string; conv?: string } = {}) {
  const s = d.signals.filter((x) => x.tenant === (f.tenant ?? MAIN) && x.lastMs >= (f.sinceMs ?? 0) && (!f.env || x.env === f.env) && (!f.conv || x.conv === f.conv) && x.userMessages > 0);
  const frustrated = s.filter((x) => x.frustrated).length;
  return { total_analyzed: s.length, frustrated, at_risk: s.filter((x) => x.atRisk).length, rate_pct: s.length ? Math.round((frustrated / s.length) * 1000) / 10 : 0 };
}

test('GET /emotions: every live detection, newest first, with its fields; replaced and tombstoned rows do not show', async () => {
  const b = await ok('/emotions');
  const exp = expectEmotions();
  assert.equal(emotionIds(b.detections), emotionIds(exp));
  assert.equal(b.pagination, { limit: 20, offset: 0, total: exp.length, has_more: false });
  const anger = b.detections.find((x: any) => x.signal === 'anger');
  assert.equal(anger, {
    conversation_id: 'c-a', message_index: 4, timestamp: new Date(now - 50 * 60_000).toISOString(), family: 'frustration', signal: 'anger',
    score: 0.85, risk_score: 0.95, trajectory: 'building', elicitor: 'agent', cause: { kind: 'tool_failure', message_index: 3, tool_use_id: 't1' }, quotes: ['WRONG again?!', 'again'],
  });
  const annoyance = b.detections.find((x: any) => x.signal === 'annoyance');
  assert.equal([annoyance.score, annoyance.quotes, annoyance.cause], [0.4, ['not what I asked'], { kind: 'agent_message', message_index: 1 }], 'the second run replaced the first');
  assert.is(b.detections.find((x: any) => x.signal === 'gratitude').cause, null);
  assert.not.ok(JSON.stringify(b).includes('tombstoned'));
  assert.not.ok(JSON.stringify(b).includes('c-gone'));
});

test('GET /emotions: filters by family, signal, conversation, time range, environment and minimum score', async () => {
  const cases: [string, EmotionFilter][] = [
    ['family=frustration', { family: 'frustration' }],
    ['family=impatience', { family: 'impatience' }],
    ['signal=anger', { signal: 'anger' }],
    ['family=frustration&signal=urgency', { family: 'frustration', signal: 'urgency' }],
    ['conversation_id=c-b', { conv: 'c-b' }],
    ['time_range=24h', { sinceMs: now - DAY }],
    ['time_range=3d&environment=staging', { sinceMs: now - 3 * DAY, env: 'staging' }],
    ['environment=production', { env: 'production' }],
    ['environment=development', { env: 'development' }],
    ['min_score=0.5', { minScore: 0.5 }],
    ['min_score=0.7', { minScore: 0.7 }],
    ['min_score=.85&family=frustration', { minScore: 0.85, family: 'frustration' }],
    ['min_score=1', { minScore: 1 }],
    ['min_score=7', { minScore: 1 }],
    ['conversation_id=nope', { conv: 'nope' }],
  ];
  for (const [qs, f] of cases) {
    const exp = expectEmotions(f);
    const b = await ok(`/emotions?${qs}`);
    assert.equal(emotionIds(b.detections), emotionIds(exp), qs);
    assert.is(b.pagination.total, exp.length, qs);
    assert.is(b.aggregates.total, exp.length, qs);
  }
  // a stored 0.7 (Float32) passes min_score=0.7
  assert.ok((await ok('/emotions?min_score=0.7')).detections.some((x: any) => x.signal === 'gratitude'));
});

test('GET /emotions: aggregates per family and signal over the filters, not the page', async () => {
  for (const [qs, f] of [['limit=1', {}], ['time_range=7d&limit=1', { sinceMs: now - 7 * DAY }], ['min_score=0.5', { minScore: 0.5 }]] as [string, EmotionFilter][]) {
    const exp = expectEmotions(f);
    const b = await ok(`/emotions?${qs}`);
    const families = [...new Set(exp.map((x) => x.family))];
    const byFamily = families
      .map((family) => ({ family, count: exp.filter((x) => x.family === family).length, conversations: new Set(exp.filter((x) => x.family === family).map((x) => x.conv)).size }))
      .sort((a, b) => b.count - a.count || a.family.localeCompare(b.family));
    assert.equal(b.aggregates.by_family, byFamily, qs);
    const bySignal = [...new Set(exp.map((x) => x.signal))]
      .map((signal) => ({ family: exp.find((x) => x.signal === signal)!.family, signal, count: exp.filter((x) => x.signal === signal).length }))
      .sort((a, b) => b.count - a.count || a.signal.localeCompare(b.signal));
    assert.equal(b.aggregates.by_signal, bySignal, qs);
  }
  const none = await ok('/emotions?conversation_id=nope');
  assert.equal(none.aggregates, { total: 0, by_family: [], by_signal: [] });
});

test('GET /emotions: frustrations of the window from the conversation signals', async () => {
  assert.equal((await ok('/emotions')).frustrations, expectFrustrations());
  assert.equal((await ok('/emotions?time_range=7d')).frustrations, expectFrustrations({ sinceMs: now - 7 * DAY }));
  assert.equal((await ok('/emotions?time_range=24h&family=satisfaction')).frustrations, expectFrustrations({ sinceMs: now - DAY }));
  assert.equal((await ok('/emotions?environment=staging')).frustrations, expectFrustrations({ env: 'staging' }));
  assert.equal((await ok('/emotions?conversation_id=c-a')).frustrations, expectFrustrations({ conv: 'c-a' }));
  assert.equal((await ok('/emotions?conversation_id=nope')).frustrations, { total_analyzed: 0, frustrated: 0, at_risk: 0, rate_pct: 0 });
});

test('GET /emotions: offset pages walk every detection; past the end keeps the exact total', async () => {
  const exp = emotionIds(expectEmotions());
  const seen: string[] = [];
  for (let offset = 0; ; offset += 2) {
    const b = await ok(`/emotions?limit=2&offset=${offset}`);
    assert.is(b.pagination.total, exp.length);
    seen.push(...emotionIds(b.detections));
    if (!b.pagination.has_more) break;
  }
  assert.equal(seen, exp);
  const past = await ok(`/emotions?limit=2&offset=${exp.length + 5}`);
  assert.equal([past.detections, past.pagination], [[], { limit: 2, offset: exp.length + 5, total: exp.length, has_more: false }]);
});

// ---- hallucinations
interface FindingFilter { tenant?: string; verdict?: string; claimType?: string; conv?: string; sinceMs?: number; env?: string }
function expectFindings(f: FindingFilter = {}): Finding[] {
  return d.findings
    .filter((x) => x.tenant === (f.tenant ?? MAIN) && (!f.verdict || x.verdict === f.verdict) && (!f.claimType || x.claimType === f.claimType))
    .filter((x) => (!f.conv || x.conv === f.conv) && x.atMs >= (f.sinceMs ?? 0) && (!f.env || x.env === f.env))
    .sort(newestFirst((x) => `${x.claimType}:${x.claim.length}`));
}
const findingIds = (xs: any[]) => xs.map((x) => `${x.conv ?? x.conversation_id}/${x.idx ?? x.message_index}/${x.claimType ?? x.claim_type}`);
function expectRates(f: { sinceMs?: number; env?: string; conv?: string; tenant?: string } = {}) {
  const s = d.signals.filter((x: Signals) => x.tenant === (f.tenant ?? MAIN) && x.lastMs >= (f.sinceMs ?? 0) && (!f.env || x.env === f.env) && (!f.conv || x.conv === f.conv));
  const sum = (i: number) => s.reduce((a, x) => a + x.claims[i]!, 0);
  const [claims, verified, contradicted, unverified] = [sum(0), sum(1), sum(2), sum(3)];
  const p = (n: number) => (claims ? Math.round((n / claims) * 1000) / 10 : 0);
  return {
    claims, verified, contradicted, unverified,
    contradiction_rate_pct: p(contradicted), verified_rate_pct: p(verified), unverified_rate_pct: p(unverified),
    conversations_with_contradictions: s.filter((x) => x.claims[2] > 0).length,
  };
}

test('GET /hallucinations: findings with evidence, filters, pagination and rates including unverified claims', async () => {
  const b = await ok('/hallucinations');
  assert.equal(findingIds(b.findings), findingIds(expectFindings()));
  assert.equal(b.pagination, { limit: 20, offset: 0, total: expectFindings().length, has_more: false });
  assert.equal(b.findings[0], {
    conversation_id: 'c-a', message_index: 5, timestamp: new Date(now - 45 * 60_000).toISOString(), claim_type: 'file_created', claim: 'file_created claim 5',
    verdict: 'verified', evidence: { message_index: 6, tool_use_id: 't5', quote: 'result 5' },
  });
  assert.equal(b.findings.find((x: any) => x.conversation_id === 'c-b').evidence, { message_index: null, tool_use_id: null, quote: '' });
  assert.not.ok(JSON.stringify(b).includes('tombstoned'));
  assert.equal(b.rates, expectRates());
  const cases: [string, FindingFilter, Parameters<typeof expectRates>[0]][] = [
    ['verdict=contradicted', { verdict: 'contradicted' }, {}],
    ['verdict=verified&claim_type=tests_pass', { verdict: 'verified', claimType: 'tests_pass' }, {}],
    ['claim_type=value_is', { claimType: 'value_is' }, {}],
    ['conversation_id=c-a', { conv: 'c-a' }, { conv: 'c-a' }],
    ['time_range=24h', { sinceMs: now - DAY }, { sinceMs: now - DAY }],
    ['time_range=7d&environment=staging', { sinceMs: now - 7 * DAY, env: 'staging' }, { sinceMs: now - 7 * DAY, env: 'staging' }],
    ['environment=development', { env: 'development' }, { env: 'development' }],
  ];
  for (const [qs, f, rf] of cases) {
    const r = await ok(`/hallucinations?${qs}`);
    assert.equal(findingIds(r.findings), findingIds(expectFindings(f)), qs);
    assert.is(r.pagination.total, expectFindings(f).length, qs);
    assert.equal(r.rates, expectRates(rf), qs);
  }
  const page = await ok('/hallucinations?limit=2&offset=2');
  assert.equal(findingIds(page.findings), findingIds(expectFindings().slice(2, 4)));
  assert.equal(page.pagination, { limit: 2, offset: 2, total: expectFindings().length, has_more: true });
  const empty = await ok('/hallucinations?conversation_id=nope');
  assert.equal(empty.rates, { claims: 0, verified: 0, contradicted: 0, unverified: 0, contradiction_rate_pct: 0, verified_rate_pct: 0, unverified_rate_pct: 0, conversations_with_contradictions: 0 });
});

// ---- overview
test('GET /overview: frustrations over the conversation window, by environment', async () => {
  for (const days of [1, 7, 30]) {
    const b = await ok(`/overview?days_back=${days}`);
    assert.equal(b.frustrations, expectFrustrations({ sinceMs: now - days * DAY }), `days ${days}`);
  }
  assert.equal((await ok('/overview?days_back=7&environment=staging')).frustrations, expectFrustrations({ sinceMs: now - 7 * DAY, env: 'staging' }));
  // the numbers the dataset was built for: 7 days -> c-a frustrated, c-b and c-risky at risk, c-calm replaced to calm
  assert.equal((await ok('/overview')).frustrations, { total_analyzed: 4, frustrated: 1, at_risk: 2, rate_pct: 25 });
  assert.equal((await ok('/overview', otherKey)).frustrations, { total_analyzed: 2, frustrated: 1, at_risk: 0, rate_pct: 50 });
});

test('summaries flow to the conversation list, context and recent activity', async () => {
  const store = ts.system.rt.store;
  const ch = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  const conv = (id: string, summary: string, version: number) => ({ tenant_id: MAIN, conversation_id: id, version, environment: 'production', message_count: 2, first_ts: ch(now - 2 * 60_000), last_ts: ch(now - 60_000), summary });
  await store.insert('conversations', [conv('c-sum', '', 1)]);
  await store.insert('conversations', [conv('c-sum', 'User asked for a refund; the order was refunded.', 2)]);
  await store.insert('messages', [{ tenant_id: MAIN, conversation_id: 'c-sum', message_id: 'm0', ts: ch(now - 2 * 60_000), seq: 0, role: 'user', content: 'refund please' }]);
  const text = 'User asked for a refund; the order was refunded.';
  const list = await ok('/conversations?limit=5');
  assert.is(list.conversations.find((c: any) => c.conversation_id === 'c-sum').summary, text);
  assert.is((await ok('/conversations/c-sum/context')).summary, text);
  assert.is((await ok('/overview')).recent_activity.find((c: any) => c.conversation_id === 'c-sum').summary, text);
  assert.ok((await ok('/conversations?search=refunded')).conversations.some((c: any) => c.conversation_id === 'c-sum'), 'search matches summaries');
});

// ---- parameters
test('GET /emotions and /hallucinations: defaults, clamps and 400s', async () => {
  const clamps: [string, (b: any) => unknown, unknown][] = [
    ['/emotions?limit=0', (b) => b.pagination.limit, 1],
    ['/emotions?limit=101', (b) => b.pagination.limit, 100],
    ['/emotions?offset=10001', (b) => b.pagination.offset, 10000],
    ['/emotions?min_score=1.5', (b) => b.pagination.total, expectEmotions({ minScore: 1 }).length],
    ['/hallucinations?limit=500', (b) => b.pagination.limit, 100],
    ['/hallucinations?offset=99999', (b) => b.pagination.offset, 10000],
    ['/hallucinations?limit=', (b) => b.pagination.limit, 20],
  ];
  for (const [p, f, want] of clamps) assert.equal(f(await ok(p)), want, p);
  const bad: [string, RegExp][] = [
    ['/emotions?family=joy', /family must be one of: frustration, confusion, distrust, impatience, disappointment, satisfaction/],
    ['/emotions?signal=happy', /signal must be one of: annoyance, anger/],
    ['/emotions?min_score=-0.1', /min_score must be a non-negative number/],
    ['/emotions?min_score=abc', /min_score must be a number/],
    ['/emotions?min_score=1e-1', /min_score must be a number/],
    ['/emotions?min_score=0.5&min_score=0.6', /min_score must be given once/],
    ['/emotions?limit=1.5', /limit must be an integer/],
    ['/emotions?offset=-1', /offset must be a non-negative integer/],
    ['/emotions?time_range=2d', /time_range must be one of/],
    ['/emotions?environment=prod', /environment must be one of/],
    [`/emotions?conversation_id=${'x'.repeat(501)}`, /conversation_id must NOT have more than 500 characters/],
    ['/hallucinations?verdict=unverified', /verdict must be one of: contradicted, verified/],
    [`/hallucinations?claim_type=${'x'.repeat(101)}`, /claim_type must NOT have more than 100 characters/],
    ['/hallucinations?limit=-2', /limit must be a non-negative integer/],
    ['/hallucinations?offset=x', /offset must be an integer/],
  ];
  for (const [p, re] of bad) {
    const r = await get(p);
    assert.is(r.status, 400, p);
    assert.ok(r.body.message.some((m: string) => re.test(m)), `${p}: ${JSON.stringify(r.body.message)}`);
  }
});

test('tenant isolation: a second tenant sees only its own signals', async () => {
  const other = await ok('/emotions', otherKey);
  assert.equal(emotionIds(other.detections), emotionIds(expectEmotions({ tenant: OTHER })));
  assert.equal(other.frustrations, expectFrustrations({ tenant: OTHER }));
  const otherC = await ok('/emotions?conversation_id=c-a', otherKey);
  assert.equal(otherC.detections.map((x: any) => x.signal), ['hostility']);
  const main = await ok('/emotions?conversation_id=c-a');
  assert.not.ok(JSON.stringify(main).includes('other tenant'));
  const h = await ok('/hallucinations', otherKey);
  assert.equal(findingIds(h.findings), findingIds(expectFindings({ tenant: OTHER })));
  assert.equal(h.rates, expectRates({ tenant: OTHER }));
  assert.not.ok(JSON.stringify(await ok('/hallucinations')).includes('other tenant'));
  for (const p of ['/emotions?family=frustration', '/hallucinations?verdict=verified']) {
    const b = JSON.stringify(await ok(p, otherKey));
    for (const leak of ['c-b', 'c-old', 'WRONG', 'All tests pass']) assert.not.ok(b.includes(leak), `${p} leaks ${leak}`);
  }
});

test.run();
