import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { frustrationKpis, pct, score3 } from '../../../query/rates.js';
import { shapeCategories } from '../../../query/routes/tool-failures.js';
import type { CategoryRow } from '../../../query/repo/tool-failures.js';

test('frustration KPIs: rate of frustrated among analyzed, one decimal, 0 when nothing was analyzed', () => {
  assert.equal(frustrationKpis(0, 0, 0), { total_analyzed: 0, frustrated: 0, at_risk: 0, rate_pct: 0 });
  assert.equal(frustrationKpis(3, 1, 1), { total_analyzed: 3, frustrated: 1, at_risk: 1, rate_pct: 33.3 });
  assert.equal(frustrationKpis(8, 8, 0).rate_pct, 100);
  assert.is(pct(2, 3), 66.7);
});

test('scores read back from Float32 show the three decimals written', () => {
  assert.is(score3(Math.fround(0.7)), 0.7);
  assert.is(score3(Math.fround(0.85)), 0.85);
  assert.is(score3('0.125'), 0.125);
});

const row = (category_id: string, family: CategoryRow['family'], failures: number): CategoryRow => ({
  category_id, label: '', family, likely_cause: '', action_hint: '', failures, conversations: 1, tools: ['Bash'], last_seen: null, example_error: '',
});

test('categories: the first `limit` listed, by_family summed over all of them, most failures first then name', () => {
  const rows = [row('a', 'not_found', 5), row('b', 'timeout', 3), row('c', 'not_found', 1), row('d', 'auth_error', 3)];
  const s = shapeCategories(rows, 2);
  assert.equal(s.categories.map((c) => c.category_id), ['a', 'b']);
  assert.equal(s.by_family, [
    { family: 'not_found', failures: 6 },
    { family: 'auth_error', failures: 3 },
    { family: 'timeout', failures: 3 },
  ]);
  assert.equal(shapeCategories([], 50), { categories: [], by_family: [] });
});

test.run();
