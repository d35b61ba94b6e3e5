import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileBody, compileQuery } from '../../../query/params.js';
import { conversationContext, listConversations } from '../../../schemas/api/conversations.js';
import { overview } from '../../../schemas/api/overview.js';
import { listEmotions } from '../../../schemas/api/emotions.js';
import { submitFeedback } from '../../../schemas/api/feedback.js';
import { searchTaskClusters } from '../../../schemas/api/clusters.js';
import { listProblemsEndpoint, problemConversationsEndpoint, problemEvidenceEndpoint, problemReportsEndpoint } from '../../../schemas/api/problems.js';
import { BadRequestError } from '../../../core/errors.js';

const list = compileQuery<any>(listConversations.query);
const context = compileQuery<any>(conversationContext.query);
const ov = compileQuery<any>(overview.query);
const body = compileBody<any>(submitFeedback.body);
const emotions = compileQuery<any>(listEmotions.query);

const messages = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    assert.instance(err, BadRequestError);
    return (err as BadRequestError).details as string[];
  }
  assert.unreachable('expected 400');
  return [];
};

test('defaults come from the schema', () => {
  assert.equal(list({}), { time_range: 'all', environment: 'all', outcome: 'any', limit: 20, offset: 0 });
  assert.equal(context({}), { window: 2 });
  assert.equal(ov({}), { days_back: 7, environment: 'all' });
});

test('numbers are coerced from the query string and clamped into range', () => {
  const rows: [Record<string, string>, Record<string, number>][] = [
    [{ limit: '0' }, { limit: 1 }],
    [{ limit: '101' }, { limit: 100 }],
    [{ limit: '+7' }, { limit: 7 }],
    [{ offset: '20000' }, { offset: 10000 }],
  ];
  for (const [raw, want] of rows) {
    const got = list(raw);
    for (const [k, v] of Object.entries(want)) assert.is(got[k], v, JSON.stringify(raw));
  }
  assert.is(context({ window: '9' }).window, 5);
  assert.is(ov({ days_back: '0' }).days_back, 1);
  assert.is(ov({ days_back: '1000' }).days_back, 90);
});

test('sign rules: window positive, others non-negative', () => {
  assert.equal(messages(() => context({ window: '0' })), ['window must be a positive integer']);
  assert.equal(messages(() => context({ msg_index: '-1' })), ['msg_index must be a non-negative integer']);
  assert.equal(messages(() => list({ offset: '-1' })), ['offset must be a non-negative integer']);
  assert.is(context({ msg_index: '0' }).msg_index, 0);
});

test('non-integers, repeated parameters and enums give 400 with every message', () => {
  assert.equal(messages(() => list({ limit: '2.5', environment: 'prod' })), ['limit must be an integer', 'environment must be one of: all, development, staging, production']);
  assert.equal(messages(() => list({ limit: ['1', '2'] })), ['limit must be given once']);
  assert.equal(messages(() => list({ limit: '0x10' })), ['limit must be an integer']);
});

test('decimal parameters: plain decimals accepted and clamped, a negative one or another notation gives 400', () => {
  assert.is(emotions({}).min_score, 0);
  assert.is(emotions({ min_score: '0.5' }).min_score, 0.5);
  assert.is(emotions({ min_score: '.75' }).min_score, 0.75);
  assert.is(emotions({ min_score: '1' }).min_score, 1);
  assert.is(emotions({ min_score: '1.5' }).min_score, 1);
  assert.is(emotions({ min_score: '0' }).min_score, 0);
  assert.equal(messages(() => emotions({ min_score: '-0.1' })), ['min_score must be a non-negative number']);
  for (const bad of ['1e-1', 'NaN', 'Infinity', '0x1', ' 0.5', 'high', '0.5.1']) assert.equal(messages(() => emotions({ min_score: bad })), ['min_score must be a number'], bad);
  // integers keep their own message beside a decimal one
  assert.equal(messages(() => emotions({ min_score: 'x', limit: '0.5' })), ['min_score must be a number', 'limit must be an integer']);
});

test('empty values mean "not given"; unknown parameters are ignored', () => {
  assert.is(list({ limit: '', search: '' }).limit, 20);
  assert.is(list({ limit: '', search: '' }).search, undefined);
  assert.not.ok('foo' in list({ foo: 'bar' }));
});

test('the common time_range and environment are checked where the endpoint applies no such filter: 400 outside their sets, ignored when valid', () => {
  const problems = compileQuery<any>(listProblemsEndpoint.query);
  assert.equal(messages(() => problems({ environment: 'bogus' })), ['environment must be one of: all, development, staging, production']);
  assert.equal(messages(() => context({ time_range: 'zz' })), ['time_range must be one of: all, 1h, 24h, 3d, 7d, 30d, 90d']);
  assert.equal(messages(() => ov({ time_range: ['1h', '24h'] })), ['time_range must be given once']);
  assert.not.ok('environment' in problems({ environment: 'staging' }));
  assert.not.ok('time_range' in context({ time_range: '24h', window: '3' }));
  assert.is(context({ time_range: '' }).window, 2);
});

test('page sizes: task-cluster search 30 (1–50), problems 25 (1–25), reports 20, problem conversations and evidence 25 (1–50)', () => {
  const cases: Array<[string, any, number, number]> = [
    ['task-cluster search', compileQuery<any>(searchTaskClusters.query), 30, 50],
    ['problems', compileQuery<any>(listProblemsEndpoint.query), 25, 25],
    ['reports', compileQuery<any>(problemReportsEndpoint.query), 20, 50],
    ['problem conversations', compileQuery<any>(problemConversationsEndpoint.query), 25, 50],
    ['evidence', compileQuery<any>(problemEvidenceEndpoint.query), 25, 50],
  ];
  for (const [name, parse, def, max] of cases) {
    const q = name === 'task-cluster search' ? { q: 'refund' } : {};
    assert.is(parse(q).limit, def, `${name} default`);
    assert.is(parse({ ...q, limit: '' }).limit, def, `${name} empty`);
    assert.is(parse({ ...q, limit: '500' }).limit, max, `${name} clamped`);
    assert.is(parse({ ...q, limit: '0' }).limit, 1, `${name} at least 1`);
  }
});

test('feedback body: defaults, lengths, enums, unknown fields', () => {
  assert.equal(body({ category: 'other' }), { category: 'other', severity: 'low' });
  assert.equal(messages(() => body({})), ['category is required']);
  assert.equal(messages(() => body({ category: 'other', note: 'x'.repeat(4001) })), ['note must NOT have more than 4000 characters']);
  assert.equal(messages(() => body({ category: 'other', extra: 1 })), ['extra is not allowed']);
  assert.equal(messages(() => body('x')), ['body must be a JSON object']);
  assert.equal(messages(() => body({ category: 'other', severity: 3 })).length, 2);
});

test.run();
