import type { Store } from '../../core/clickhouse.js';

export interface FeedbackRecord {
  tenant_id: string;
  feedback_id: string;
  submitted_at: string;
  category: string;
  severity: string;
  note: string;
  source: string;
  agent: string;
  cli_version: string;
  refs: string;
  command_context: string;
  key_id: string;
  request_id: string;
}

/** Writes one general-feedback record; resolves only once ClickHouse has stored it. */
export function createFeedbackRepo(store: Store) {
  return {
    async insert(record: FeedbackRecord): Promise<void> {
      // synchronous insert: the 202 promises the record is stored
      await store.insert('feedback', [record], { async_insert: 0 });
    },
  };
}
