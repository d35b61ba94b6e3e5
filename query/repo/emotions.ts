import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { CauseRef, Elicitor, EmotionFamily, Trajectory } from '../../stream/analyses/types.js';
import { frustrationKpis, score3 } from '../rates.js';
import { isoTimestamp } from '../time.js';
import { withFields } from '../../core/own.js';

export interface EmotionFilter {
  tenant: string;
  conversationId: string;
  family: string;
  signal: string;
  environment: string;
  sinceMs: number;
  minScore: number;
}

/** Enum-valued columns are typed as the analyzer writes them (stream/analyses/types.ts). */
interface PageRow {
  conversation_id: string;
  message_index: number | string;
  message_ts: string;
  family: EmotionFamily;
  signal: string;
  score: number | string;
  risk_score: number | string;
  trajectory: Trajectory;
  elicitor: Elicitor;
  cause_kind: CauseRef['kind'] | '';
  cause_message_index: number | string | null;
  cause_has_tool: number | string | boolean;
  cause_tool_use_id: string;
  quotes: string[];
}

interface AggregateRow {
  dim: 'signal' | 'family' | 'frustrations';
  family: EmotionFamily;
  signal: string;
  n: number | string;
  conversations: number | string;
  at_risk: number | string;
}

const filterParams = (f: EmotionFilter) => ({
  tenant: f.tenant,
  conversation_id: f.conversationId,
  family: f.family,
  signal: f.signal,
  environment: f.environment,
  since_ms: f.sinceMs,
  min_score: f.minScore,
});

/** The cause reference as the API shows it: null without a kind (no cause, or text that is not one). */
function causeOf(r: PageRow) {
  if (!r.cause_kind) return null;
  const cause: { kind: CauseRef['kind']; message_index: number | null; tool_use_id?: string } = {
    kind: r.cause_kind,
    message_index: r.cause_message_index === null ? null : Number(r.cause_message_index),
  };
  if (Number(r.cause_has_tool) === 1 || r.cause_has_tool === true) cause.tool_use_id = r.cause_tool_use_id;
  return cause;
}

const byCountThenName = <T extends { count: number }>(name: (x: T) => string) => (a: T, b: T) => b.count - a.count || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);

/** Typed reads behind GET /emotions: the page and the aggregates (with frustrations), in parallel. */
export function createEmotionsRepo(store: Store) {
  return {
    async read(f: EmotionFilter, limit: number, offset: number) {
      const params = filterParams(f);
      const [page, aggregates] = await Promise.all([
        store.query<PageRow>(namedQuery('query-emotions-page'), withFields(params, { limit, offset })),
        store.query<AggregateRow>(namedQuery('query-emotions-aggregates'), params),
      ]);
      const of = (dim: AggregateRow['dim']) => aggregates.filter((a) => a.dim === dim);
      const fr = of('frustrations')[0];
      const byFamily = of('family').map((a) => ({ family: a.family, count: Number(a.n), conversations: Number(a.conversations) }));
      return {
        detections: page.map((r) => ({
          conversation_id: r.conversation_id,
          message_index: Number(r.message_index),
          timestamp: isoTimestamp(r.message_ts),
          family: r.family,
          signal: r.signal,
          score: score3(r.score),
          risk_score: score3(r.risk_score),
          trajectory: r.trajectory,
          elicitor: r.elicitor,
          cause: causeOf(r),
          quotes: r.quotes ?? [],
        })),
        aggregates: {
          total: byFamily.reduce((sum, x) => sum + x.count, 0),
          by_family: byFamily.sort(byCountThenName((x) => x.family)),
          by_signal: of('signal')
            .map((a) => ({ family: a.family, signal: a.signal, count: Number(a.n) }))
            .sort(byCountThenName((x) => x.signal)),
        },
        frustrations: frustrationKpis(Number(fr?.n ?? 0), Number(fr?.conversations ?? 0), Number(fr?.at_risk ?? 0)),
      };
    },
  };
}
