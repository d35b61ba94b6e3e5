/**
 * Semantic and hybrid modes of GET /search (message anchors). Semantic: the run's segments closest
 * to the query vector, then in each of them the message whose own vector is closest (messages of
 * those few conversations are embedded at query time with the run's model), scored by that
 * message's cosine similarity. Hybrid: reciprocal rank fusion of the keyword hits (by relevance)
 * and the semantic hits, keyed by (conversation, message index). No message vectors are stored:
 * the anchors come from the segments' vectors, which the taxonomy keeps anyway.
 */
import { namedQuery, type Store } from '../../core/clickhouse.js';
import { dot, embedText, type TextModel } from '../../core/vectors/model.js';
import { reciprocalRankFusion } from '../../core/vectors/ranking.js';
import type { ClustersRepo } from '../repo/clusters.js';
import { formatSnippet, type SearchHit } from '../repo/search.js';
import { isoTimestamp } from '../time.js';
import { withFields } from '../../core/own.js';

/** A segment joins the semantic candidates at this cosine similarity to the query. */
export const ANCHOR_SEGMENT_FLOOR = 0.15;
/** Candidates of each ranking in hybrid mode. */
export const ANCHOR_POOL = 50;
const SNIPPET_CHARS = 200;

export interface AnchorFilter {
  tenant: string;
  q: string;
  limit: number;
  conversationId: string;
  userId: string;
  environment: string;
  sinceMs: number;
}

interface Numbered {
  conversation_id: string;
  message_id: string;
  index: number;
  ts: string;
  role: string;
  content: string;
}

/** Messages of the conversations, numbered as the context endpoint numbers them. */
async function numberedMessages(store: Store, tenant: string, conversations: string[]): Promise<Map<string, Numbered[]>> {
  const rows = await store.query<{ conversation_id: string; message_id: string; t: string; s: number | string; role: string; content: string }>(namedQuery('query-search-segment-messages'), { tenant, conversations });
  const by = new Map<string, typeof rows>();
  for (const r of rows) by.set(r.conversation_id, [...(by.get(r.conversation_id) ?? []), r]);
  const out = new Map<string, Numbered[]>();
  for (const [c, list] of by) {
    list.sort((a, b) => Date.parse(a.t) - Date.parse(b.t) || Number(a.s) - Number(b.s) || (a.message_id < b.message_id ? -1 : a.message_id > b.message_id ? 1 : 0));
    out.set(c, list.map((r, index) => ({ conversation_id: c, message_id: r.message_id, index, ts: r.t, role: r.role, content: r.content })));
  }
  return out;
}

const snippet = (text: string) => {
  const body = text.replace(/\s+/g, ' ').trim();
  return formatSnippet(body.slice(0, SNIPPET_CHARS), false, body.length > SNIPPET_CHARS);
};

/** The semantic hits (best first, at most `limit`), or undefined when semantic search is unavailable. */
export async function semanticHits(store: Store, clusters: ClustersRepo, f: AnchorFilter): Promise<SearchHit[] | undefined> {
  const run = await clusters.currentRun(f.tenant);
  const model: TextModel | undefined = run ? await clusters.model(f.tenant, run.id) : undefined;
  const vector = model ? embedText(model, f.q) : null;
  if (!run || !model || !vector) return undefined;
  const segments = await clusters.semanticSegments(f.tenant, run.id, vector, { floor: ANCHOR_SEGMENT_FLOOR, limit: f.limit, conversationId: f.conversationId, userId: f.userId, environment: f.environment });
  if (segments.length === 0) return [];
  const messages = await numberedMessages(store, f.tenant, [...new Set(segments.map((s) => s.conversation_id))]);
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  for (const seg of segments) {
    let best: { m: Numbered; sim: number } | undefined;
    for (const m of (messages.get(seg.conversation_id) ?? []).slice(seg.start_index, seg.end_index + 1)) {
      if (!m.content.trim() || Date.parse(m.ts) < f.sinceMs) continue;
      const v = embedText(model, m.content);
      const sim = v ? dot(v, vector) : 0;
      if (!best || sim > best.sim) best = { m, sim };
    }
    if (!best || seen.has(`${seg.conversation_id}\u0000${best.m.index}`)) continue;
    seen.add(`${seg.conversation_id}\u0000${best.m.index}`);
    hits.push({ conversation_id: seg.conversation_id, message_index: best.m.index, message_id: best.m.message_id, role: best.m.role, snippet: snippet(best.m.content), score: Math.round(best.sim * 10_000) / 10_000, timestamp: isoTimestamp(best.m.ts) });
  }
  return hits.sort((a, b) => b.score - a.score || Date.parse(b.timestamp) - Date.parse(a.timestamp)).slice(0, f.limit);
}

/** Keyword and semantic hits fused by reciprocal rank; score = the fused score. */
export function fuseHits(keyword: readonly SearchHit[], semantic: readonly SearchHit[]): SearchHit[] {
  const key = (h: SearchHit) => `${h.conversation_id}\u0000${h.message_index}`;
  const byKey = new Map<string, SearchHit>();
  for (const h of [...keyword, ...semantic]) if (!byKey.has(key(h))) byKey.set(key(h), h);
  return reciprocalRankFusion([keyword.map(key), semantic.map(key)]).map((x) => withFields(byKey.get(x.id)!, { score: Math.round(x.score * 1e6) / 1e6 }));
}
