import type { IngestBatch, IngestEvent } from '../../../schemas/events.js';
import { STREAMS } from '../../../schemas/subjects.js';
import { wholeEvents } from '../../../stream/batch.js';
import type { TestSystem } from '../../helpers/system.js';

/** Every batch currently in the INGEST stream (read by sequence; nothing is consumed). */
export async function readBatches(ts: TestSystem): Promise<Array<{ seq: number; subject: string; msgId: string; batch: IngestBatch }>> {
  const jsm = ts.system.rt.bus.jsm;
  const info = await jsm.streams.info(STREAMS.INGEST.name);
  const out = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(STREAMS.INGEST.name, { seq }).catch(() => null);
    if (!m) continue;
    out.push({ seq, subject: m.subject, msgId: m.header?.get('Nats-Msg-Id') ?? '', batch: m.json<IngestBatch>() });
  }
  return out;
}

export async function readEvents(ts: TestSystem): Promise<IngestEvent[]> {
  return (await readBatches(ts)).flatMap((b) => wholeEvents(b.batch));
}

export async function streamCount(ts: TestSystem): Promise<number> {
  return (await ts.system.rt.bus.jsm.streams.info(STREAMS.INGEST.name)).state.messages;
}

/** Empties the INGEST stream between tests. */
export async function purge(ts: TestSystem): Promise<void> {
  await ts.system.rt.bus.jsm.streams.purge(STREAMS.INGEST.name);
}

export const auth = (key: string) => ({ authorization: `Bearer ${key}` });

export function kv(attrs: Record<string, unknown>) {
  return Object.entries(attrs).map(([key, v]) => ({
    key,
    value:
      typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v },
  }));
}

/** An OTLP/JSON logs envelope with one resource and scope. */
export function logsEnvelope(records: object[], resource: Record<string, unknown> = { 'service.name': 'claude-code' }, scope = 'com.anthropic.claude_code.events') {
  return { resourceLogs: [{ resource: { attributes: kv(resource) }, scopeLogs: [{ scope: { name: scope, version: '2.1.294' }, logRecords: records }] }] };
}
