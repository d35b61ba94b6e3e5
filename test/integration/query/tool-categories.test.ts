/**
 * Failure categories on GET /tool-failures and /tool-failures/:tool: categorized call facts written
 * straight into the rollup's fact table and folded by the stream role's own recompute (a call that
 * later succeeded tombstones its category row), joined with each tenant's registry; expectations
 * from the seed model; the overview's categories agree with the per-tool detail; tenant isolation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { recomputeGroups } from '../../../stream/analyze/tool-failures.js';
import { assertMatchesSchema } from './fixtures/schema-check.js';

const H = 3_600_000;
const DAY = 24 * H;
const MAIN = 'default';
const OTHER = 'acme';
let ts: TestSystem;
let now: number;
let otherKey: string;

interface Call { tenant: string; tool: string; conv: string; id: string; ago: number; category: string; error: string; env?: string; failed?: boolean }
interface Category { tenant: string; id: string; label: string; family: string }

const REGISTRY: Category[] = [
  { tenant: MAIN, id: 'cat-nf', label: 'No such file <path>', family: 'not_found' },
  { tenant: MAIN, id: 'cat-perm', label: 'Permission denied <path>', family: 'permission_denied' },
  { tenant: MAIN, id: 'cat-rej', label: 'User rejected the call', family: 'user_rejected' },
  { tenant: OTHER, id: 'cat-nf', label: 'other tenant label', family: 'not_found' },
  { tenant: OTHER, id: 'cat-secret', label: 'secret category', family: 'auth_error' },
];
let calls: Call[];

const c = (tenant: string, tool: string, conv: string, id: string, ago: number, category: string, error: string, extra: Partial<Call> = {}): Call => ({ tenant, tool, conv, id, ago, category, error, ...extra });
const iso = (ms: number) => new Date(ms).toISOString();
const fact = (x: Call, version: number, isDeleted = 0, failed = x.failed !== false) => ({
  tenant_id: x.tenant, tool_name: x.tool, failed: failed ? 1 : 0, day: iso(now - x.ago).slice(0, 10), conversation_id: x.conv, call_id: x.id,
  version, is_deleted: isDeleted, environment: x.env ?? 'production', effect_class: 'spawn', ts: iso(now - x.ago).replace('T', ' ').replace('Z', ''),
  error: failed ? x.error : '', error_type: '', category_id: failed ? x.category : '',
});
const groups = (xs: Call[]) => [...new Map(xs.map((x) => [`${x.tenant}|${x.tool}|${iso(now - x.ago).slice(0, 10)}`, [x.tenant, x.tool, iso(now - x.ago).slice(0, 10)] as [string, string, string]])).values()];

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'] });
  now = Date.now();
  otherKey = (await ts.system.rt.keys.create({ tenant: OTHER, role: 'member', scopes: ['read'] })).key;
  calls = [
    c(MAIN, 'Bash', 'k1', '1', H, 'cat-nf', 'ls: /tmp/a: No such file'),
    c(MAIN, 'Bash', 'k1', '2', 2 * H, 'cat-nf', 'ls: /tmp/b: No such file'),
    c(MAIN, 'Read', 'k2', '3', DAY, 'cat-nf', 'open /x: No such file'),
    c(MAIN, 'Read', 'k2', '4', DAY + H, 'cat-perm', 'open /etc/shadow: Permission denied'),
    c(MAIN, 'Bash', 'k3', '5', 2 * DAY, 'cat-rej', 'User rejected tool use', { env: 'staging' }),
    c(MAIN, 'Bash', 'k4', '6', 10 * DAY, 'cat-nf', 'cat /old: No such file'),
    c(MAIN, 'Bash', 'k1', '7', 3 * H, '', '', { failed: false }),
    c(MAIN, 'Edit', 'k5', '8', 4 * H, '', 'stored before categories'),
    c(MAIN, 'Edit', 'k5', '9', 30 * 60_000, 'cat-unknown', 'edit conflict'),
    c(OTHER, 'Bash', 'o1', '1', H, 'cat-nf', 'other tenant secret error'),
    c(OTHER, 'Bash', 'o1', '2', 2 * H, 'cat-secret', 'other tenant token expired'),
  ];
  const store = ts.system.rt.store;
  await store.insert('tool_failure_categories', REGISTRY.map((r) => ({ tenant_id: r.tenant, category_id: r.id, analyzer_version: 1, template: r.label, label: r.label, family: r.family, likely_cause: `cause of ${r.id}`, action_hint: `hint for ${r.id}`, tool_hint: '' })));
  // run 1: call 10 failed (cat-perm); run 2: it succeeded -> its category row for Write goes away
  const flipped = c(MAIN, 'Write', 'k6', '10', 3 * H, 'cat-perm', 'write /etc: Permission denied');
  await store.insert('tool_call_facts', [...calls.map((x) => fact(x, 1)), fact(flipped, 1)]);
  await recomputeGroups(store, groups([...calls, flipped]));
  await store.insert('tool_call_facts', [fact(flipped, 2, 1), fact(flipped, 2, 0, false)]);
  await recomputeGroups(store, groups([flipped]));
  calls.push({ ...flipped, failed: false });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const ok = async (path: string, key = ts.adminKey) => {
  const r = await http(`${ts.queryUrl}/api/v1/data${path}`, { headers: { 'x-api-key': key } });
  assert.is(r.status, 200, `${path}: ${r.text}`);
  assertMatchesSchema(path, r.body);
  return r.body;
};

/** Whole UTC days: today and the previous `days` days. */
const windowStart = (days: number) => {
  const d = new Date(now - days * DAY);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};

function expectCategories(f: { tenant?: string; days?: number; env?: string; tool?: string; family?: string } = {}) {
  const tenant = f.tenant ?? MAIN;
  const failed = calls.filter((x) => x.tenant === tenant && x.failed !== false && x.category && now - x.ago >= windowStart(f.days ?? 7))
    .filter((x) => (!f.env || (x.env ?? 'production') === f.env) && (!f.tool || x.tool === f.tool));
  const rows = [...new Set(failed.map((x) => x.category))].map((id) => {
    const mine = failed.filter((x) => x.category === id);
    const reg = REGISTRY.find((r) => r.tenant === tenant && r.id === id);
    const tools = [...new Set(mine.map((x) => x.tool))].map((t) => [t, mine.filter((x) => x.tool === t).length] as const);
    const newest = mine.reduce((a, b) => (b.ago < a.ago ? b : a));
    return {
      category_id: id, label: reg?.label ?? '', family: reg?.family ?? 'other', likely_cause: reg ? `cause of ${id}` : '', action_hint: reg ? `hint for ${id}` : '',
      failures: mine.length, conversations: new Set(mine.map((x) => x.conv)).size,
      tools: tools.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map((t) => t[0]),
      last_seen: iso(now - newest.ago), example_error: newest.error,
    };
  });
  return rows
    .filter((r) => !f.family || r.family === f.family)
    .sort((a, b) => b.failures - a.failures || b.last_seen.localeCompare(a.last_seen) || a.category_id.localeCompare(b.category_id));
}
const byFamily = (rows: ReturnType<typeof expectCategories>) =>
  [...new Set(rows.map((r) => r.family))].map((family) => ({ family, failures: rows.filter((r) => r.family === family).reduce((a, r) => a + r.failures, 0) }))
    .sort((a, b) => b.failures - a.failures || a.family.localeCompare(b.family));

test('GET /tool-failures: categories with counts, tools, family, cause and hint; by_family; existing blocks kept', async () => {
  const b = await ok('/tool-failures');
  assert.equal(b.categories, expectCategories());
  assert.equal(b.by_family, byFamily(expectCategories()));
  // what the dataset was built for: three not-found failures across Bash and Read in two conversations
  assert.equal(b.categories[0], {
    category_id: 'cat-nf', label: 'No such file <path>', family: 'not_found', likely_cause: 'cause of cat-nf', action_hint: 'hint for cat-nf',
    failures: 3, conversations: 2, tools: ['Bash', 'Read'], last_seen: iso(now - H), example_error: 'ls: /tmp/a: No such file',
  });
  // a category id not in the registry still counts, with empty texts and family `other`
  assert.equal(b.categories.find((x: any) => x.category_id === 'cat-unknown').family, 'other');
  // the call that later succeeded is gone from its category; uncategorized failures stay in totals only
  assert.not.ok(b.categories.some((x: any) => x.tools.includes('Write')));
  const categorized = b.categories.reduce((a: number, x: any) => a + x.failures, 0);
  assert.is(b.totals.failures, categorized + 1);
  for (const k of ['period', 'totals', 'tools', 'by_effect_class', 'timeline']) assert.ok(k in b, k);
});

test('GET /tool-failures: window, environment, family and category_limit', async () => {
  assert.equal((await ok('/tool-failures?days_back=30')).categories, expectCategories({ days: 30 }));
  assert.equal((await ok('/tool-failures?days_back=1')).categories, expectCategories({ days: 1 }));
  assert.equal((await ok('/tool-failures?environment=staging')).categories, expectCategories({ env: 'staging' }));
  const nf = await ok('/tool-failures?family=not_found&days_back=30');
  assert.equal(nf.categories, expectCategories({ days: 30, family: 'not_found' }));
  assert.equal(nf.by_family, [{ family: 'not_found', failures: 4 }]);
  assert.equal(nf.totals, (await ok('/tool-failures?days_back=30')).totals, 'family leaves the other blocks alone');
  assert.equal((await ok('/tool-failures?family=timeout')).categories, []);
  const one = await ok('/tool-failures?category_limit=1');
  assert.equal(one.categories, expectCategories().slice(0, 1));
  assert.equal(one.by_family, byFamily(expectCategories()), 'by_family covers every category, not only those listed');
  assert.is((await ok('/tool-failures?category_limit=0')).categories.length, 1);
  const r = await http(`${ts.queryUrl}/api/v1/data/tool-failures?family=bogus&category_limit=x`, { headers: { 'x-api-key': ts.adminKey } });
  assert.is(r.status, 400);
  assert.ok(r.body.message.some((m: string) => /family must be one of: user_rejected, permission_denied/.test(m)));
  assert.ok(r.body.message.includes('category_limit must be an integer'));
});

test('GET /tool-failures/:tool: the tool\'s categories, agreeing with the overview', async () => {
  const bash = await ok('/tool-failures/Bash');
  assert.equal(bash.categories, expectCategories({ tool: 'Bash' }));
  assert.equal(bash.by_family, byFamily(expectCategories({ tool: 'Bash' })));
  assert.equal((await ok('/tool-failures/Read?family=permission_denied')).categories, expectCategories({ tool: 'Read', family: 'permission_denied' }));
  assert.equal((await ok('/tool-failures/Write')).categories, []);
  assert.equal((await ok('/tool-failures/no_such_tool')).categories, []);
  for (const days of [7, 30]) {
    const all = await ok(`/tool-failures?days_back=${days}`);
    const perTool = new Map<string, { failures: number; tools: string[] }>();
    for (const t of new Set(all.categories.flatMap((x: any) => x.tools as string[]))) {
      for (const x of (await ok(`/tool-failures/${t}?days_back=${days}`)).categories) {
        const acc = perTool.get(x.category_id) ?? { failures: 0, tools: [] };
        perTool.set(x.category_id, { failures: acc.failures + x.failures, tools: [...acc.tools, t as string] });
      }
    }
    for (const x of all.categories) {
      assert.is(perTool.get(x.category_id)?.failures, x.failures, `${x.category_id} over ${days} days`);
      assert.equal([...perTool.get(x.category_id)!.tools].sort(), [...x.tools].sort());
    }
    assert.is(perTool.size, all.categories.length);
  }
});

test('tenant isolation: categories, labels and counts of one tenant never reach another', async () => {
  const other = await ok('/tool-failures', otherKey);
  assert.equal(other.categories, expectCategories({ tenant: OTHER }));
  assert.is(other.categories.find((x: any) => x.category_id === 'cat-nf').label, 'other tenant label');
  const main = JSON.stringify(await ok('/tool-failures?days_back=90'));
  for (const leak of ['other tenant', 'secret', 'cat-secret']) assert.not.ok(main.includes(leak), leak);
  const mainBash = await ok('/tool-failures/Bash?days_back=90');
  assert.is(mainBash.categories.find((x: any) => x.category_id === 'cat-nf').conversations, 2, 'k1 and k4, not the other tenant\'s o1');
  const otherBash = JSON.stringify(await ok('/tool-failures/Bash?days_back=90', otherKey));
  for (const leak of ['No such file <path>', 'ls: /tmp', 'cat-rej', 'k1']) assert.not.ok(otherBash.includes(leak), leak);
});

test.run();
