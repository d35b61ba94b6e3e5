import { namedQuery, type Store } from '../../core/clickhouse.js';
import { pct } from '../rates.js';
import { isoTimestamp } from '../time.js';
import { withFields } from '../../core/own.js';

export interface HallucinationFilter {
  tenant: string;
  conversationId: string;
  verdict: string;
  claimType: string;
  environment: string;
  sinceMs: number;
}

interface PageRow {
  conversation_id: string;
  message_index: number | string;
  message_ts: string;
  claim_type: string;
  claim: string;
  /** Only these two are stored per message. */
  verdict: 'contradicted' | 'verified';
  evidence_message_index: number | string | null;
  evidence_tool_use_id: string | null;
  evidence_quote: string;
}

interface CountRow {
  dim: 'findings' | 'rates';
  a: number | string;
  b: number | string;
  c: number | string;
  d: number | string;
  e: number | string;
}

const filterParams = (f: HallucinationFilter) => ({
  tenant: f.tenant,
  conversation_id: f.conversationId,
  verdict: f.verdict,
  claim_type: f.claimType,
  environment: f.environment,
  since_ms: f.sinceMs,
});

/** Typed reads behind GET /hallucinations: the page, and the total with the claim rates, in parallel. */
export function createHallucinationsRepo(store: Store) {
  return {
    async read(f: HallucinationFilter, limit: number, offset: number) {
      const params = filterParams(f);
      const [page, counts] = await Promise.all([
        store.query<PageRow>(namedQuery('query-hallucinations-page'), withFields(params, { limit, offset })),
        store.query<CountRow>(namedQuery('query-hallucinations-rates'), params),
      ]);
      const findings = counts.find((r) => r.dim === 'findings');
      const r = counts.find((x) => x.dim === 'rates');
      const claims = Number(r?.a ?? 0);
      const verified = Number(r?.b ?? 0);
      const contradicted = Number(r?.c ?? 0);
      const unverified = Number(r?.d ?? 0);
      return {
        total: Number(findings?.a ?? 0),
        findings: page.map((p) => ({
          conversation_id: p.conversation_id,
          message_index: Number(p.message_index),
          timestamp: isoTimestamp(p.message_ts),
          claim_type: p.claim_type,
          claim: p.claim,
          verdict: p.verdict,
          evidence: {
            message_index: p.evidence_message_index === null ? null : Number(p.evidence_message_index),
            tool_use_id: p.evidence_tool_use_id,
            quote: p.evidence_quote,
          },
        })),
        rates: {
          claims,
          verified,
          contradicted,
          unverified,
          contradiction_rate_pct: pct(contradicted, claims),
          verified_rate_pct: pct(verified, claims),
          unverified_rate_pct: pct(unverified, claims),
          conversations_with_contradictions: Number(r?.e ?? 0),
        },
      };
    },
  };
}
