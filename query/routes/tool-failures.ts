import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { toolFailureDetail, toolFailureOverview } from '../../schemas/api/tool-failures.js';
import { createToolFailuresRepo, type CategoryRow, type StatsRow } from '../repo/tool-failures.js';
import { daysBackStartDayMs, oneDecimal, utcDays } from '../time.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type OverviewQuery = Infer<(typeof toolFailureOverview)['query']>;
type OverviewResponse = Infer<(typeof toolFailureOverview)['response']>;
type DetailQuery = Infer<(typeof toolFailureDetail)['query']>;
type DetailResponse = Infer<(typeof toolFailureDetail)['response']>;

export const ratePct = (failures: number, calls: number) => (calls === 0 ? 0 : oneDecimal((failures / calls) * 100));

/** Pure: the grouping-set rows as the response blocks; days without calls are zero-filled. */
export function shapeStats(rows: StatsRow[], fromMs: number, toMs: number) {
  const total = rows.find((r) => r.dim === 'total');
  const byDay = new Map(rows.filter((r) => r.dim === 'day').map((r) => [r.day, r]));
  return {
    totals: {
      calls: total?.calls ?? 0,
      failures: total?.failures ?? 0,
      failure_rate_pct: ratePct(total?.failures ?? 0, total?.calls ?? 0),
      conversations: total?.conversations ?? 0,
      tools: total?.tools ?? 0,
    },
    tools: rows
      .filter((r) => r.dim === 'tool')
      .sort((a, b) => b.failures - a.failures || b.calls - a.calls || a.tool.localeCompare(b.tool))
      .map((r) => ({
        tool_name: r.tool,
        calls: r.calls,
        failures: r.failures,
        failure_rate_pct: ratePct(r.failures, r.calls),
        conversations: r.conversations,
        last_failure_at: r.last_failure_at,
        example_errors: r.example_errors.slice(0, 3),
      })),
    by_effect_class: rows
      .filter((r) => r.dim === 'effect')
      .sort((a, b) => b.failures - a.failures || b.calls - a.calls || a.effect.localeCompare(b.effect))
      .map((r) => ({ effect_class: r.effect, calls: r.calls, failures: r.failures, failure_rate_pct: ratePct(r.failures, r.calls) })),
    timeline: utcDays(fromMs, toMs).map((date) => ({ date, calls: byDay.get(date)?.calls ?? 0, failures: byDay.get(date)?.failures ?? 0 })),
  };
}

/** Pure: the categories to list and the failures per family over all of them (most first, then name). */
export function shapeCategories(rows: CategoryRow[], limit: number) {
  const families = new Map<CategoryRow['family'], number>();
  for (const r of rows) families.set(r.family, (families.get(r.family) ?? 0) + r.failures);
  return {
    categories: rows.slice(0, limit),
    by_family: [...families]
      .map(([family, failures]) => ({ family, failures }))
      .sort((a, b) => b.failures - a.failures || (a.family < b.family ? -1 : a.family > b.family ? 1 : 0)),
  };
}

export function mountToolFailures(router: Router<RequestState>, deps: RouteDeps): void {
  const repo = createToolFailuresRepo(deps.store);

  defineRoute<OverviewQuery>(router, deps.keys, toolFailureOverview, async ({ principal, query: q }): Promise<OverviewResponse> => {
    const now = deps.now();
    const sinceMs = daysBackStartDayMs(q.days_back, now);
    const base = { tenant: principal.tenant, environment: q.environment, sinceMs, tool: '' };
    const [rows, categories] = await Promise.all([repo.stats(base), repo.categories({ ...base, family: q.family ?? '' })]);
    const s = shapeStats(rows, sinceMs, now);
    return {
      period: { days: q.days_back },
      totals: s.totals,
      tools: s.tools.slice(0, q.limit),
      by_effect_class: s.by_effect_class,
      timeline: s.timeline,
      ...shapeCategories(categories, q.category_limit),
    };
  });

  defineRoute<DetailQuery>(router, deps.keys, toolFailureDetail, async ({ principal, query: q, params }): Promise<DetailResponse> => {
    const now = deps.now();
    const sinceMs = daysBackStartDayMs(q.days_back, now);
    const tool = params.tool ?? '';
    const base = { tenant: principal.tenant, environment: q.environment, sinceMs, tool };
    // an empty name would mean "all tools" to the query; no tool has an empty name worth listing
    const [{ stats: rows, errors }, categories] = tool
      ? await Promise.all([repo.detail({ ...base, limit: q.limit }), repo.categories({ ...base, family: q.family ?? '' })])
      : [{ stats: [], errors: [] }, []];
    const s = shapeStats(rows, sinceMs, now);
    const { tools: _tools, ...totals } = s.totals;
    return {
      tool_name: tool,
      period: { days: q.days_back },
      totals,
      by_effect_class: s.by_effect_class,
      timeline: s.timeline,
      errors,
      ...shapeCategories(categories, q.category_limit),
    };
  });
}
