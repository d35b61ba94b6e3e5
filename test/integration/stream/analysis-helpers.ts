/**
 * What the analysis suites that start the stream role themselves share: the runtime with other
 * stream settings, conversations published in parts, and which of them are not yet analyzed with
 * every stored message.
 */
import type { Config } from '../../../core/config.js';
import type { Runtime } from '../../../core/runtime.js';
import type { WorkRequest } from '../../../stream/analyze/work.js';
import { batchOf, conversationEvents, publishBatch } from '../../helpers/events.js';
import type { TestSystem } from '../../helpers/system.js';

export function analysisHelpers(ts: () => TestSystem) {
  /** The runtime with other stream settings (the suite owns one data directory). */
  const rtWith = (stream: Partial<Config['stream']>): Runtime => {
    const rt = ts().system.rt;
    return Object.create(rt, { config: { value: { ...rt.config, stream: { ...rt.config.stream, ...stream } } } }) as Runtime;
  };
  /** The conversations of a batch sent to the analysis thread. */
  const keysOf = (input: WorkRequest) => input.loaded.flatMap((c) => c.keys);
  const has = (input: WorkRequest, prefix: string) => keysOf(input).some((k) => k.conversationId.startsWith(prefix));
  const metric = (name: string, labels?: Record<string, string>) => ts().system.rt.metrics.value(name, labels);

  /** Conversations published in `parts` messages each (their content grows with every part). */
  async function publishConversations(prefix: string, n: number, parts: number): Promise<{ ids: string[]; events: number }> {
    const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
    let events = 0;
    for (let p = 0; p < parts; p++) {
      for (const id of ids) {
        const batch = batchOf(conversationEvents(id, 2, (p + 1) * 100_000));
        events += batch.events.length;
        await publishBatch(ts().system.rt.bus.js, batch);
      }
    }
    return { ids, events };
  }

  /** Conversations whose analyzed rollup does not count every stored message (undefined when none). */
  async function notAnalyzed(ids: string[]): Promise<string[] | undefined> {
    const rows = await ts().system.rt.store.query<{ c: string; analyzed: string; stored: string }>(
      `SELECT m.conversation_id AS c, toString(any(c.message_count)) AS analyzed, toString(count()) AS stored
         FROM (SELECT conversation_id FROM {{db}}.messages FINAL WHERE tenant_id = 'default' AND conversation_id IN {ids:Array(String)}) AS m
         LEFT JOIN (SELECT conversation_id, message_count FROM {{db}}.conversations FINAL WHERE tenant_id = 'default') AS c USING conversation_id
        GROUP BY m.conversation_id`,
      { ids },
    );
    const done = new Set(rows.filter((r) => Number(r.analyzed) === Number(r.stored)).map((r) => r.c));
    const missing = ids.filter((id) => !done.has(id));
    return missing.length ? missing : undefined;
  }

  return { rtWith, keysOf, has, metric, publishConversations, notAnalyzed };
}
