// Tool failures: categories with family, likely cause and action hint (GET /tool-failures), per-tool
// detail with example errors (GET /tool-failures/:tool).
import { enc, qs, useApi } from '../api';
import { Link, setQuery, useLocation } from '../router';
import { Async, Bar, DAYS_BACK, Empty, ENVIRONMENTS, fmtInt, fmtPct, fmtTime, Kpi, Select, TimeChart, truncate } from '../ui';

const FAMILIES = ['all', 'user_rejected', 'permission_denied', 'not_found', 'invalid_input', 'precondition_failed', 'build_or_type_error', 'test_failure', 'command_failed', 'business_rule', 'timeout', 'resource_exhausted', 'rate_limited', 'auth_error', 'network', 'other'] as const;

interface Category {
  category_id: string;
  label: string;
  family: string;
  likely_cause: string;
  action_hint: string;
  failures: number;
  conversations: number;
  tools: string[];
  last_seen: string | null;
  example_error: string;
}
interface Common {
  period: { days: number };
  totals: { calls: number; failures: number; failure_rate_pct: number; conversations: number; tools?: number };
  by_effect_class: Array<{ effect_class: string; calls: number; failures: number; failure_rate_pct: number }>;
  timeline: Array<{ date: string; calls: number; failures: number }>;
  categories: Category[];
  by_family: Array<{ family: string; failures: number }>;
}
interface Overview extends Common {
  tools: Array<{ tool_name: string; calls: number; failures: number; failure_rate_pct: number; conversations: number; last_failure_at: string | null; example_errors: string[] }>;
}
interface Detail extends Common {
  tool_name: string;
  errors: Array<{ error: string; error_type: string; count: number; last_seen: string | null; examples: Array<{ conversation_id: string; call_id: string; timestamp: string | null }> }>;
}

function useFilters() {
  const { query } = useLocation();
  const days = query.get('days_back') ?? '7';
  const environment = query.get('environment') ?? 'all';
  const family = query.get('family') ?? 'all';
  return { days, environment, family, params: qs({ days_back: days, environment: environment === 'all' ? undefined : environment, family: family === 'all' ? undefined : family }) };
}

function Filters({ days, environment, family }: { days: string; environment: string; family: string }) {
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()}>
      <Select name="days_back" label="Period (days)" value={days} options={DAYS_BACK.includes(days as never) ? DAYS_BACK : [...DAYS_BACK, days]} onChange={(v) => setQuery({ days_back: v === '7' ? null : v })} />
      <Select name="environment" label="Environment" value={environment} options={ENVIRONMENTS} onChange={(v) => setQuery({ environment: v === 'all' ? null : v })} />
      <Select name="family" label="Failure family" value={family} options={FAMILIES} onChange={(v) => setQuery({ family: v === 'all' ? null : v })} />
    </form>
  );
}

function Totals({ r }: { r: Common }) {
  return (
    <section class="kpis" aria-label="Totals">
      <Kpi id="failures" label={`Failed calls, ${r.period.days + 1} UTC days`} value={fmtInt(r.totals.failures)} sub={<>of <span data-calls>{fmtInt(r.totals.calls)}</span> calls</>} />
      <Kpi id="failure-rate" label="Failure rate" value={fmtPct(r.totals.failure_rate_pct)} />
      <Kpi id="failed-conversations" label="Conversations with a failure" value={fmtInt(r.totals.conversations)} />
      {r.totals.tools !== undefined && <Kpi id="failing-tools" label="Tools with a failure" value={fmtInt(r.totals.tools)} />}
    </section>
  );
}

function Categories({ r }: { r: Common }) {
  const max = Math.max(0, ...r.by_family.map((f) => f.failures));
  return (
    <>
      <section class="card" aria-labelledby="categories">
        <h2 id="categories">Failure categories</h2>
        {r.categories.length === 0 ? (
          <Empty title="No categorized failures in this window." />
        ) : (
          <div class="table-wrap">
            <table class="table" data-table="categories">
              <thead>
                <tr>
                  <th>Category</th>
                  <th>Family</th>
                  <th>Likely cause / what to do</th>
                  <th class="num">Failures</th>
                  <th class="num">Conv.</th>
                  <th>Tools</th>
                </tr>
              </thead>
              <tbody>
                {r.categories.map((c) => (
                  <tr key={c.category_id} data-category={c.category_id}>
                    <td>
                      <strong>{c.label}</strong>
                      {c.example_error && <div class="muted small mono">{truncate(c.example_error, 140)}</div>}
                    </td>
                    <td>
                      <span class="chip">{c.family.replace(/_/g, ' ')}</span>
                    </td>
                    <td class="small">
                      {c.likely_cause && <div>{c.likely_cause}</div>}
                      {c.action_hint && <div class="hint">→ {c.action_hint}</div>}
                    </td>
                    <td class="num" data-failures>
                      {fmtInt(c.failures)}
                    </td>
                    <td class="num">{fmtInt(c.conversations)}</td>
                    <td class="small">
                      {c.tools.map((t) => (
                        <Link key={t} href={`/tool-failures/${enc(t)}`} class="chip">
                          {t}
                        </Link>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {r.by_family.length > 0 && (
        <section class="card" aria-labelledby="families">
          <h2 id="families">By failure family</h2>
          <table class="table small" data-table="families">
            <tbody>
              {r.by_family.map((f) => (
                <tr key={f.family} data-family={f.family}>
                  <td>
                    <button type="button" class="link" onClick={() => setQuery({ family: f.family })}>
                      {f.family.replace(/_/g, ' ')}
                    </button>
                  </td>
                  <td class="num">{fmtInt(f.failures)}</td>
                  <td class="bar-col">
                    <Bar value={f.failures} max={max} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

function Timeline({ r }: { r: Common }) {
  return (
    <section class="card">
      <h2>Per day</h2>
      <TimeChart
        title="Tool calls and failures per day"
        days={r.timeline.map((d) => d.date)}
        series={[
          { name: 'calls', cls: 's1', values: r.timeline.map((d) => d.calls) },
          { name: 'failures', cls: 's3', values: r.timeline.map((d) => d.failures) },
        ]}
      />
    </section>
  );
}

export function ToolFailuresPage() {
  const f = useFilters();
  const state = useApi<Overview>(`/tool-failures${f.params}`);
  return (
    <main class="page tool-failures">
      <div class="page-head">
        <h1>Tool failures</h1>
        <Filters {...f} />
      </div>
      <Async state={state} what="tool failures">
        {(r) => (
          <>
            <Totals r={r} />
            {r.totals.calls === 0 ? (
              <Empty title="No tool calls in this window.">
                <p class="muted small">Tool calls arrive with conversations (tool_use / tool_result blocks) or OpenTelemetry tool spans.</p>
              </Empty>
            ) : (
              <>
                <Categories r={r} />
                <section class="card" aria-labelledby="tools">
                  <h2 id="tools">Tools</h2>
                  <div class="table-wrap">
                    <table class="table" data-table="tools">
                      <thead>
                        <tr>
                          <th>Tool</th>
                          <th class="num">Calls</th>
                          <th class="num">Failures</th>
                          <th class="num">Rate</th>
                          <th class="num">Conv.</th>
                          <th>Last failure</th>
                          <th>Frequent errors</th>
                        </tr>
                      </thead>
                      <tbody>
                        {r.tools.map((t) => (
                          <tr key={t.tool_name} data-tool={t.tool_name}>
                            <td>
                              <Link href={`/tool-failures/${enc(t.tool_name)}${f.params}`}>{t.tool_name}</Link>
                            </td>
                            <td class="num" data-calls>
                              {fmtInt(t.calls)}
                            </td>
                            <td class="num" data-failures>
                              {fmtInt(t.failures)}
                            </td>
                            <td class="num">{fmtPct(t.failure_rate_pct)}</td>
                            <td class="num">{fmtInt(t.conversations)}</td>
                            <td class="nowrap small">{fmtTime(t.last_failure_at)}</td>
                            <td class="small mono">{t.example_errors.map((e) => <div key={e}>{truncate(e, 90)}</div>)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </section>
                <Timeline r={r} />
              </>
            )}
          </>
        )}
      </Async>
    </main>
  );
}

export function ToolPage({ tool }: { tool: string }) {
  const f = useFilters();
  const state = useApi<Detail>(`/tool-failures/${enc(tool)}${f.params}`);
  return (
    <main class="page tool">
      <div class="page-head">
        <div>
          <p class="small">
            <Link href={`/tool-failures${f.params}`}>← Tool failures</Link>
          </p>
          <h1>{tool}</h1>
        </div>
        <Filters {...f} />
      </div>
      <Async state={state} what={`failures of ${tool}`}>
        {(r) => (
          <>
            <Totals r={r} />
            {r.totals.calls === 0 ? (
              <Empty title={`No calls of ${tool} in this window.`} />
            ) : (
              <>
                <section class="card" aria-labelledby="errors">
                  <h2 id="errors">Errors</h2>
                  {r.errors.length === 0 ? (
                    <Empty title="No failed calls." />
                  ) : (
                    <div class="table-wrap">
                      <table class="table" data-table="errors">
                        <thead>
                          <tr>
                            <th>Error</th>
                            <th class="num">Count</th>
                            <th>Last seen</th>
                            <th>Examples</th>
                          </tr>
                        </thead>
                        <tbody>
                          {r.errors.map((e, i) => (
                            <tr key={i} data-error-count={e.count}>
                              <td class="mono small">
                                {truncate(e.error, 300)}
                                {e.error_type && <div class="muted">{e.error_type}</div>}
                              </td>
                              <td class="num">{fmtInt(e.count)}</td>
                              <td class="nowrap small">{fmtTime(e.last_seen)}</td>
                              <td class="small">
                                {e.examples.map((x) => (
                                  <div key={x.call_id}>
                                    <Link href={`/conversations/${enc(x.conversation_id)}`}>{truncate(x.conversation_id, 30)}</Link> <span class="muted">{fmtTime(x.timestamp)}</span>
                                  </div>
                                ))}
                              </td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </div>
                  )}
                </section>
                <Categories r={r} />
                <Timeline r={r} />
              </>
            )}
          </>
        )}
      </Async>
    </main>
  );
}
