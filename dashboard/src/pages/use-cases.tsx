// Use cases: the cluster tree (GET /clusters) with sizes and breadcrumb, search in the three modes
// (GET /task-clusters/search) and the conversations of a node (GET /clusters/:id/conversations).
import { useEffect, useState } from 'preact/hooks';
import { enc, qs, useApi } from '../api';
import { Link, setQuery, useLocation } from '../router';
import { Async, Bar, Empty, fmtInt, fmtScore, fmtTime, Pager, Select, truncate } from '../ui';

interface Node {
  node_id: string;
  label: string;
  summary: string;
  keywords: string[];
  node_type: string;
  segment_count: number;
  has_children: boolean;
  depth: number;
}
interface ClustersResponse {
  cluster_run: { id: string; num_categories: number; num_clusters: number; num_segments: number; completed_at: string } | null;
  breadcrumb: Array<{ node_id: string; label: string }>;
  clusters: Node[];
  meta: { total_clusters: number; total_segments: number };
}
interface Match {
  node_id: string;
  label: string;
  description?: string;
  node_type?: string;
  segment_count?: number;
  ancestor_path?: Array<{ nodeId: string; label: string; depth: number }>;
  similarity?: number;
}
const MODES = ['hybrid', 'fuzzy', 'semantic'] as const;

function NodeConversations({ nodeId }: { nodeId: string }) {
  const { query } = useLocation();
  const offset = query.get('offset') ?? '0';
  const state = useApi<{ cluster: { node_id: string; label: string; summary: string; segment_count: number } | null; conversations: Array<{ conversation_id: string; summary: string; message_count: number }>; pagination: { limit: number; offset: number; total: number; has_more: boolean } }>(
    `/clusters/${enc(nodeId)}/conversations${qs({ limit: 20, offset: offset === '0' ? undefined : offset })}`,
  );
  return (
    <section class="card" aria-labelledby="node-conversations" data-panel="node-conversations">
      <Async state={state} what="conversations of this use case">
        {(r) =>
          !r.cluster ? (
            <Empty title="This use case is not in the current taxonomy." />
          ) : (
            <>
              <h2 id="node-conversations">
                Conversations in “{r.cluster.label}” <span class="muted small">({fmtInt(r.pagination.total)})</span>
              </h2>
              <p class="small">{r.cluster.summary}</p>
              <p class="small">
                <Link href={`/conversations${qs({ cluster_id: nodeId })}`}>Open in the conversation list with filters</Link>
              </p>
              <table class="table" data-table="node-conversations">
                <thead>
                  <tr>
                    <th>Conversation</th>
                    <th>Summary</th>
                    <th class="num">Messages</th>
                  </tr>
                </thead>
                <tbody>
                  {r.conversations.map((c) => (
                    <tr key={c.conversation_id} data-conversation={c.conversation_id}>
                      <td>
                        <Link href={`/conversations/${enc(c.conversation_id)}`}>{truncate(c.conversation_id, 40)}</Link>
                      </td>
                      <td>{truncate(c.summary, 140)}</td>
                      <td class="num">{fmtInt(c.message_count)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager pagination={r.pagination} onPage={(o) => setQuery({ offset: o || null })} />
            </>
          )
        }
      </Async>
    </section>
  );
}

function SearchResults({ q, mode }: { q: string; mode: string }) {
  const state = useApi<{ clusterRunId: string | null; query: string; search_mode: string; matches: Match[] }>(`/task-clusters/search${qs({ q, mode })}`);
  return (
    <section class="card" aria-labelledby="search-results" data-panel="cluster-search">
      <Async state={state} what="matching use cases">
        {(r) => (
          <>
            <h2 id="search-results">
              Use cases matching “{q}” <span class="muted small">({r.matches.length})</span>
            </h2>
            <p class="small muted">
              Mode used: <strong data-search-mode>{r.search_mode}</strong>
              {r.search_mode !== mode ? ` (asked for ${mode}; semantic search is not available for this query)` : ''}
            </p>
            {r.matches.length === 0 ? (
              <Empty title={r.clusterRunId ? 'No use case matches.' : 'No taxonomy yet.'} />
            ) : (
              <ul class="matches" data-list="matches">
                {r.matches.map((m) => (
                  <li key={m.node_id} data-node={m.node_id}>
                    <span class="muted small">{(m.ancestor_path ?? []).map((a) => a.label).join(' › ')}</span>
                    {(m.ancestor_path ?? []).length > 0 ? ' › ' : ''}
                    <Link href={`/use-cases${qs({ node: m.node_id })}`}>{m.label}</Link>
                    {m.similarity !== undefined && <span class="muted small"> similarity {fmtScore(m.similarity)}</span>}
                    {m.description && <div class="small">{truncate(m.description, 160)}</div>}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </Async>
    </section>
  );
}

export function UseCasesPage() {
  const { query } = useLocation();
  const node = query.get('node');
  const q = query.get('q') ?? '';
  const mode = (query.get('mode') ?? 'hybrid') as (typeof MODES)[number];
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  // a node's own children; for a leaf, its parent's children are shown with the leaf selected
  const level = useApi<ClustersResponse>(`/clusters${qs({ parent_id: node ?? undefined })}`);
  const lookup = useApi<{ matches: Match[] }>(node ? `/task-clusters/search${qs({ node_id: node })}` : null);
  const nodeInfo = lookup.data?.matches[0];
  const isLeaf = node !== null && level.data !== undefined && level.data.clusters.length === 0;
  const parentId = nodeInfo?.ancestor_path?.[nodeInfo.ancestor_path.length - 1]?.nodeId;
  const parentLevel = useApi<ClustersResponse>(isLeaf ? `/clusters${qs({ parent_id: parentId ?? undefined })}` : null);
  const shown = isLeaf ? parentLevel : level;
  return (
    <main class="page use-cases">
      <div class="page-head">
        <h1>Use cases</h1>
        <form
          class="filters"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            setQuery({ q: text.trim() || null });
          }}
        >
          <label class="field">
            <span>Search use cases</span>
            <input type="search" name="q" value={text} minLength={2} maxLength={200} placeholder="e.g. refund" onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <Select name="mode" label="Mode" value={mode} options={MODES} onChange={(v) => setQuery({ mode: v === 'hybrid' ? null : v })} />
          <button type="submit">Search</button>
        </form>
      </div>
      {q.length >= 2 && <SearchResults q={q} mode={mode} />}
      <Async state={shown} what="the use-case tree">
        {(r) =>
          !r.cluster_run ? (
            <Empty title="No use-case taxonomy yet.">
              <p class="muted">Conversations are split into segments (one user goal each); the first taxonomy is built once 50 analyzed segments exist, then kept up to date automatically.</p>
            </Empty>
          ) : (
            <section class="card" aria-labelledby="tree">
              <nav class="breadcrumb small" aria-label="Breadcrumb" data-breadcrumb>
                <Link href="/use-cases">All use cases</Link>
                {r.breadcrumb.map((b) => (
                  <span key={b.node_id}>
                    {' › '}
                    <Link href={`/use-cases${qs({ node: b.node_id })}`}>{b.label}</Link>
                  </span>
                ))}
                {isLeaf && nodeInfo && <span> › {nodeInfo.label}</span>}
              </nav>
              <h2 id="tree" class="small muted">
                {r.breadcrumb.length === 0 ? `${fmtInt(r.meta.total_clusters)} categories` : `${fmtInt(r.meta.total_clusters)} clusters`} · {fmtInt(r.meta.total_segments)} segments · taxonomy of {fmtTime(r.cluster_run.completed_at)} built from {fmtInt(r.cluster_run.num_segments)} segments
              </h2>
              <table class="table" data-table="clusters">
                <thead>
                  <tr>
                    <th>{r.breadcrumb.length === 0 ? 'Category' : 'Cluster'}</th>
                    <th class="num">Segments</th>
                    <th class="bar-col">Share</th>
                  </tr>
                </thead>
                <tbody>
                  {r.clusters.map((c) => (
                    <tr key={c.node_id} data-node={c.node_id} class={c.node_id === node ? 'selected' : ''}>
                      <td>
                        <Link href={`/use-cases${qs({ node: c.node_id, q: q || undefined, mode: q && mode !== 'hybrid' ? mode : undefined })}`}>{c.label}</Link>
                        {c.has_children && <span class="muted small"> ›</span>}
                        <div class="muted small">{truncate(c.summary, 140)}</div>
                        {c.keywords.length > 0 && <div class="small">{c.keywords.slice(0, 6).map((k) => <span class="chip" key={k}>{k}</span>)}</div>}
                      </td>
                      <td class="num" data-count>
                        {fmtInt(c.segment_count)}
                      </td>
                      <td class="bar-col">
                        <Bar value={c.segment_count} max={Math.max(...r.clusters.map((x) => x.segment_count))} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )
        }
      </Async>
      {node && <NodeConversations nodeId={node} />}
    </main>
  );
}
