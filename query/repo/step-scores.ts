import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { Infer } from '../../schemas/api/infer.js';
import type { stepScoreRollup, stepScoreSegment } from '../../schemas/api/step-scores.js';

export type StepScoreSegmentOut = Infer<typeof stepScoreSegment>;
export type StepScoreRollupOut = Infer<typeof stepScoreRollup>;

interface RawRow {
  kind: string;
  segment_index: number | string;
  doc: string;
}

/** Typed read behind GET /conversations/:id/step-scores: one primary-key range of `step_scores`. */
export function createStepScoresRepo(store: Store) {
  return {
    async load(tenant: string, id: string): Promise<{ segments: StepScoreSegmentOut[]; rollup: StepScoreRollupOut | null }> {
      const rows = await store.query<RawRow>(namedQuery('query-step-scores'), { tenant, id });
      const segments = rows
        .filter((r) => r.kind === 'segment')
        .sort((a, b) => Number(a.segment_index) - Number(b.segment_index))
        .map((r) => JSON.parse(r.doc) as StepScoreSegmentOut);
      const rollup = rows.find((r) => r.kind === 'rollup');
      return { segments, rollup: rollup ? (JSON.parse(rollup.doc) as StepScoreRollupOut) : null };
    },
  };
}
