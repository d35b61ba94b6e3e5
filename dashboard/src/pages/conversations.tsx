// Conversations: GET /conversations with every filter of the spec kept in the query string.
import { useEffect, useState } from 'preact/hooks';
import { enc, qs, useApi } from '../api';
import { Link, setQuery, useLocation } from '../router';
import { Async, Empty, ENVIRONMENTS, fmtInt, fmtTime, IngestHelp, Pager, Select, TIME_RANGES, truncate } from '../ui';

interface ConversationRow {
  conversation_id: string;
  summary: string;
  message_count: number;
  first_timestamp: string;
  last_timestamp: string;
  cluster_id: string | null;
  cluster_name: string | null;
  environment: string;
}
interface ListResponse {
  conversations: ConversationRow[];
  search_mode: 'keyword' | 'hybrid';
  pagination: { limit: number; offset: number; total: number; has_more: boolean };
}

/** Query parameters of GET /conversations the page forwards as they are. */
export const LIST_PARAMS = ['search', 'cluster_id', 'user_id', 'time_range', 'environment', 'outcome', 'world_state', 'limit', 'offset'] as const;
const TEXT_FILTERS = [
  { name: 'search', label: 'Search', placeholder: 'words in summaries and messages' },
  { name: 'user_id', label: 'User', placeholder: 'end-user id' },
  { name: 'world_state', label: 'World state', placeholder: 'e.g. economy, hathat' },
  { name: 'cluster_id', label: 'Cluster', placeholder: 'use-case node id' },
] as const;

function TextFilters({ query }: { query: URLSearchParams }) {
  const initial = () => Object.fromEntries(TEXT_FILTERS.map((f) => [f.name, query.get(f.name) ?? '']));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const key = TEXT_FILTERS.map((f) => query.get(f.name) ?? '').join('\u0000');
  useEffect(() => setValues(initial()), [key]);
  return (
    <form
      class="filters text-filters"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        setQuery({ ...Object.fromEntries(TEXT_FILTERS.map((f) => [f.name, values[f.name]!.trim() || null])), offset: null });
      }}
    >
      {TEXT_FILTERS.map((f) => (
        <label class="field" key={f.name}>
          <span>{f.label}</span>
          <input name={f.name} type="search" value={values[f.name]} placeholder={f.placeholder} onInput={(e) => setValues({ ...values, [f.name]: (e.currentTarget as HTMLInputElement).value })} />
        </label>
      ))}
      <button type="submit">Apply</button>
    </form>
  );
}

export function ConversationsPage() {
  const { query } = useLocation();
  const params: Record<string, string> = {};
  for (const p of LIST_PARAMS) {
    const v = query.get(p);
    if (v) params[p] = v;
  }
  const state = useApi<ListResponse>(`/conversations${qs(params)}`);
  const anyFilter = LIST_PARAMS.some((p) => p !== 'limit' && p !== 'offset' && params[p] && params[p] !== 'all' && params[p] !== 'any');
  return (
    <main class="page conversations">
      <div class="page-head">
        <h1>Conversations</h1>
      </div>
      <TextFilters query={query} />
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select name="time_range" label="Last activity" value={params.time_range ?? 'all'} options={TIME_RANGES} onChange={(v) => setQuery({ time_range: v === 'all' ? null : v, offset: null })} />
        <Select name="environment" label="Environment" value={params.environment ?? 'all'} options={ENVIRONMENTS} onChange={(v) => setQuery({ environment: v === 'all' ? null : v, offset: null })} />
        <Select
          name="outcome"
          label="Outcome"
          value={(params.outcome ?? 'any') as string}
          options={[
            { value: 'any', label: 'any' },
            { value: 'positive', label: 'positive' },
            { value: 'negative', label: 'negative' },
          ]}
          onChange={(v) => setQuery({ outcome: v === 'any' ? null : v, offset: null })}
        />
        <Select name="limit" label="Per page" value={params.limit ?? '20'} options={['10', '20', '50', '100']} onChange={(v) => setQuery({ limit: v === '20' ? null : v, offset: null })} />
        {anyFilter && (
          <button type="button" class="link" onClick={() => setQuery(Object.fromEntries(LIST_PARAMS.map((p) => [p, null])))}>
            Clear filters
          </button>
        )}
      </form>
      <Async state={state} what="conversations">
        {(r) => (
          <>
            <p class="muted small" data-summary>
              <span data-count>{fmtInt(r.pagination.total)}</span> conversations
              {params.search && (
                <>
                  {' '}
                  matching “{params.search}” · search mode <strong data-search-mode>{r.search_mode}</strong>
                  {r.search_mode === 'hybrid' ? ' (keyword and semantic matches fused; the total is the candidate pool)' : ' (every word must appear)'}
                </>
              )}
            </p>
            {r.conversations.length === 0 ? (
              anyFilter ? (
                <Empty title="No conversation matches these filters." />
              ) : (
                <Empty title="No conversations yet.">
                  <IngestHelp />
                </Empty>
              )
            ) : (
              <div class="table-wrap">
                <table class="table" data-table="conversations">
                  <thead>
                    <tr>
                      <th>Conversation</th>
                      <th>Summary</th>
                      <th class="num">Messages</th>
                      <th>Last activity</th>
                      <th>Use case</th>
                      <th>Env</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.conversations.map((c) => (
                      <tr key={c.conversation_id} data-conversation={c.conversation_id}>
                        <td>
                          <Link href={`/conversations/${enc(c.conversation_id)}`}>{truncate(c.conversation_id, 40)}</Link>
                        </td>
                        <td class="summary">{c.summary ? truncate(c.summary, 160) : <span class="muted">no summary yet</span>}</td>
                        <td class="num" data-messages>
                          {fmtInt(c.message_count)}
                        </td>
                        <td class="nowrap">{fmtTime(c.last_timestamp)}</td>
                        <td>
                          {c.cluster_id ? (
                            <Link href={`/conversations${qs({ ...params, cluster_id: c.cluster_id, offset: undefined })}`} title="Show this use case only">
                              {c.cluster_name ?? c.cluster_id}
                            </Link>
                          ) : (
                            <span class="muted">—</span>
                          )}
                        </td>
                        <td>{c.environment}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {r.pagination.total > 0 && <Pager pagination={r.pagination} onPage={(offset) => setQuery({ offset: offset || null })} />}
          </>
        )}
      </Async>
    </main>
  );
}
