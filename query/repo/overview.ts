import { namedQuery, type Store } from '../../core/clickhouse.js';
import { frustrationKpis } from '../rates.js';
import { isoTimestamp, utcDays } from '../time.js';

interface KpiRow {
  block: 'conversations' | 'tool_failures' | 'frustrations';
  a: string | number;
  b: string | number;
  c: string | number;
}

/** Typed reads behind GET /overview: KPI blocks (one statement) and recent activity, in parallel. */
export function createOverviewRepo(store: Store) {
  return {
    async read(opts: { tenant: string; environment: string; currentMs: number; previousMs: number; toolSinceMs: number; recentSinceMs: number; recentLimit: number; nowMs?: number }) {
      const [kpis, recent, days] = await Promise.all([
        store.query<KpiRow>(namedQuery('query-overview-kpis'), {
          tenant: opts.tenant,
          environment: opts.environment,
          current_ms: opts.currentMs,
          previous_ms: opts.previousMs,
          tool_since_ms: opts.toolSinceMs,
        }),
        store.query<{ conversation_id: string; summary: string; last_ts: string }>(namedQuery('query-overview-recent'), {
          tenant: opts.tenant,
          environment: opts.environment,
          since_ms: opts.recentSinceMs,
          limit: opts.recentLimit,
        }),
        store.query<{ block: 'conversations' | 'frustrated' | 'tool_failures'; d: string; n: string | number }>(namedQuery('query-overview-timeline'), {
          tenant: opts.tenant,
          environment: opts.environment,
          current_ms: opts.currentMs,
          tool_since_ms: opts.toolSinceMs,
        }),
      ]);
      // one entry per UTC day of the tool-failure window (which starts on the day the KPI window starts)
      const timeline = utcDays(opts.toolSinceMs, opts.nowMs ?? Date.now()).map((date) => ({ date, conversations: 0, frustrated: 0, tool_failures: 0 }));
      const byDate = new Map(timeline.map((t) => [t.date, t]));
      for (const d of days) {
        const t = byDate.get(d.d);
        if (t) t[d.block] += Number(d.n);
      }
      const block = (name: KpiRow['block']) => kpis.find((k) => k.block === name);
      const conv = block('conversations');
      const tf = block('tool_failures');
      const fr = block('frustrations');
      return {
        conversations: { current: Number(conv?.a ?? 0), previous: Number(conv?.b ?? 0) },
        toolFailures: { total: Number(tf?.a ?? 0), conversations: Number(tf?.b ?? 0), tools: Number(tf?.c ?? 0) },
        frustrations: frustrationKpis(Number(fr?.a ?? 0), Number(fr?.b ?? 0), Number(fr?.c ?? 0)),
        timeline,
        recent: recent.map((r) => ({ conversation_id: r.conversation_id, summary: r.summary, timestamp: isoTimestamp(r.last_ts) })),
      };
    },
  };
}
