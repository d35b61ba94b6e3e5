// Overview: the KPIs of GET /overview with their trends, the daily chart, top clusters and
// recent activity, for the chosen days_back and environment.
import { enc, qs, useApi } from '../api';
import { Link, setQuery, useLocation } from '../router';
import { Async, DAYS_BACK, Empty, ENVIRONMENTS, fmtInt, fmtPct, fmtTime, IngestHelp, Kpi, Select, TimeChart, truncate } from '../ui';

interface Overview {
  period: { days: number };
  conversations: { total: number; trend_pct: number };
  frustrations: { total_analyzed: number; frustrated: number; at_risk: number; rate_pct: number };
  tool_failures: { total: number; conversations: number; tools: number };
  top_clusters: Array<{ node_id: string; label: string; summary: string; keywords: string[]; segment_count: number }>;
  recent_activity: Array<{ conversation_id: string; summary: string; timestamp: string }>;
  timeline?: Array<{ date: string; conversations: number; frustrated: number; tool_failures: number }>;
}

export function OverviewPage() {
  const { query } = useLocation();
  const days = query.get('days_back') ?? '7';
  const environment = query.get('environment') ?? 'all';
  const state = useApi<Overview>(`/overview${qs({ days_back: days, environment: environment === 'all' ? undefined : environment })}`);
  return (
    <main class="page overview">
      <div class="page-head">
        <h1>Overview</h1>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <Select name="days_back" label="Period (days)" value={days} options={DAYS_BACK.includes(days as never) ? DAYS_BACK : [...DAYS_BACK, days]} onChange={(v) => setQuery({ days_back: v === '7' ? null : v })} />
          <Select name="environment" label="Environment" value={environment} options={ENVIRONMENTS} onChange={(v) => setQuery({ environment: v === 'all' ? null : v })} />
        </form>
      </div>
      <Async state={state} what="the overview">
        {(o) => (
          <>
            <section class="kpis" aria-label="Key figures">
              <Kpi id="conversations" label={`Conversations, last ${o.period.days} d`} value={fmtInt(o.conversations.total)} trend={o.conversations.trend_pct} />
              <Kpi
                id="frustration"
                label="Frustration rate"
                value={fmtPct(o.frustrations.rate_pct)}
                sub={
                  <>
                    <span data-frustrated>{fmtInt(o.frustrations.frustrated)}</span> frustrated, <span data-at-risk>{fmtInt(o.frustrations.at_risk)}</span> at risk of{' '}
                    <span data-analyzed>{fmtInt(o.frustrations.total_analyzed)}</span> analyzed
                  </>
                }
              />
              <Kpi
                id="tool-failures"
                label="Tool failures"
                value={fmtInt(o.tool_failures.total)}
                sub={
                  <>
                    in <span data-conversations>{fmtInt(o.tool_failures.conversations)}</span> conversations, <span data-tools>{fmtInt(o.tool_failures.tools)}</span> tools
                  </>
                }
              />
            </section>
            {o.conversations.total === 0 && o.recent_activity.length === 0 ? (
              <Empty title="No conversations in this period yet.">
                <IngestHelp />
              </Empty>
            ) : null}
            {o.timeline && o.timeline.length > 0 && (
              <section class="card">
                <h2>Per day</h2>
                <TimeChart
                  title="Conversations, frustrations and tool failures per day"
                  days={o.timeline.map((d) => d.date)}
                  series={[
                    { name: 'conversations', cls: 's1', values: o.timeline.map((d) => d.conversations) },
                    { name: 'frustrated', cls: 's2', values: o.timeline.map((d) => d.frustrated) },
                    { name: 'tool failures', cls: 's3', values: o.timeline.map((d) => d.tool_failures) },
                  ]}
                />
              </section>
            )}
            <div class="columns">
              <section class="card" aria-labelledby="top-clusters">
                <h2 id="top-clusters">Top use cases</h2>
                {o.top_clusters.length === 0 ? (
                  <Empty title="No use-case taxonomy yet.">
                    <p class="muted">The first taxonomy is built once 50 analyzed conversation segments exist.</p>
                  </Empty>
                ) : (
                  <table class="table" data-table="top-clusters">
                    <thead>
                      <tr>
                        <th>Use case</th>
                        <th class="num">Segments</th>
                      </tr>
                    </thead>
                    <tbody>
                      {o.top_clusters.map((c) => (
                        <tr key={c.node_id} data-node={c.node_id}>
                          <td>
                            <Link href={`/use-cases${qs({ node: c.node_id })}`}>{c.label}</Link>
                            <div class="muted small">{truncate(c.summary, 120)}</div>
                          </td>
                          <td class="num" data-count>
                            {fmtInt(c.segment_count)}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </section>
              <section class="card" aria-labelledby="recent">
                <h2 id="recent">Recent activity</h2>
                {o.recent_activity.length === 0 ? (
                  <Empty title="Nothing in the last 7 days." />
                ) : (
                  <ul class="recent" data-list="recent">
                    {o.recent_activity.map((r) => (
                      <li key={r.conversation_id} data-conversation={r.conversation_id}>
                        <Link href={`/conversations/${enc(r.conversation_id)}`}>{r.conversation_id}</Link>
                        <span class="muted small"> {fmtTime(r.timestamp)}</span>
                        <div class="small">{r.summary ? truncate(r.summary, 160) : <span class="muted">no summary yet</span>}</div>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            </div>
          </>
        )}
      </Async>
    </main>
  );
}
