import { createHash } from 'node:crypto';
import { isNotFound, type Bus } from '../core/nats.js';
import type { Metrics } from '../core/metrics.js';
import { UnavailableError } from '../core/errors.js';
import type { SourceRoute } from '../schemas/events.js';
import { CONSUMERS, ingestSubject, STREAMS } from '../schemas/subjects.js';
import type { EventGroup, PreparedEvent } from './pipeline.js';
import { eventIdOf } from '../schemas/event-ids.js';

export interface PublisherOptions {
  publishTimeoutMs: number;
  maxBacklogMessages: number;
  maxBacklogBytes: number;
  retryAfterSeconds: number;
  publishBatchEvents: number;
  /** How long a read of the INGEST stream's state is reused. Default 250 ms. */
  backlogCacheMs?: number;
}

export interface Publisher {
  /** Throws UnavailableError (503) when the bus cannot take the request now. */
  admit(): Promise<void>;
  /**
   * Publishes in batches (IngestBatch, up to publishBatchEvents events and under max_payload)
   * and resolves once every batch is acknowledged; returns each event's id, in order.
   */
  publish(tenant: string, source: SourceRoute, requestId: string, receiveTime: string, events: PreparedEvent[]): Promise<string[]>;
  /** Bytes one serialized event may take so a batch message fits the server's max_payload. */
  maxEventBytes(): number;
}

/** The message's own fields are written before its events: the id prefix goes here once the hash is known. */
const ID_PREFIX_KEY = '"event_id_prefix":"';
/** Hex digits of the message id that begin every event id; 8 more give the event's position. */
const ID_PREFIX_CHARS = 24;
const COMMA = 0x2c;
const NEWLINE = Buffer.from('\n');
const OPEN = Buffer.from('{');

/** A batch message ready to publish: its bytes and its content-derived ids. */
export interface EncodedBatch {
  data: Buffer;
  msgId: string;
  eventIds: string[];
}

/** A group of the message: how its events name it, and what the hash reads for it. */
interface BatchGroup {
  /** `"group":<index>,`, written first into each event of the group. */
  ref: string;
  /** `,"resource":<resource>,"scope":<scope>}` and a newline: the end of the event's v1 JSON, hashed. */
  hashed: Buffer;
}

/** What `encodeBatch` writes of an event: its JSON, its group, and the agent its JSON names first. */
export type BatchEvent = Pick<PreparedEvent, 'json' | 'group'> & { agent?: string };

/**
 * One IngestBatch message (v3) as bytes, built once from the pre-serialized events: no batch string
 * is built and then encoded again, and the hash reads the very bytes that are published.
 *
 * Layout: `{"v":3,"tenant_id":…,"source":…,"agent":…,"request_id":…,"receive_time":…,
 * "event_id_prefix":…,"groups":[{"resource":…,"scope":…},…],"events":[` then, per event, `{`,
 * `"group":<n>,` when it has a group, and its own JSON after its opening brace. What every event of a
 * request shares is written once per message, not once per event: a group's resource and scope, the
 * receive time, the event ids' common prefix (an event's id is that prefix and its position as 8 hex
 * digits), and the tenant, agent and source the edge's JSON of every event begins with
 * (`{"tenant_id":…,"agent":…,"source":…,`): an event whose JSON begins so is written without them
 * (about 140 bytes per event; docs/ingestion.md "Publishing and backpressure"). The stream role
 * gives each event these fields back before anything else reads it (stream/batch.ts).
 *
 * Content-derived ids: the Nats-Msg-Id hashes tenant, source and each event's v1 JSON (its own
 * fields, then `resource` and `scope`; no receive time), each followed by a newline, so a retried
 * request maps to the same messages and JetStream's duplicate window drops them, and the ids are
 * those of the v1 and v2 layouts. An event id is the first 96 bits of the message id followed by
 * the event's position in the batch as 8 hex digits: stable across retries, distinct within a
 * batch, and distinct across batches as long as their SHA-256 prefixes are (one hash per batch, not
 * per event). `sizes` are the events' own UTF-8 byte lengths (`json`, without the group) when the
 * caller has them already.
 */
export function encodeBatch(
  tenant: string,
  source: SourceRoute,
  requestId: string,
  receiveTime: string,
  events: readonly BatchEvent[],
  sizes: readonly number[] = events.map((e) => Buffer.byteLength(e.json)),
): EncodedBatch {
  const n = events.length;
  // the message's groups, in order of first use
  const used = new Map<EventGroup, BatchGroup>();
  const groupTexts: string[] = [];
  for (let i = 0; i < n; i++) {
    const g = events[i]!.group;
    if (g === undefined || used.has(g)) continue;
    const tail = `,"resource":${g.resource},"scope":${g.scope}}`;
    used.set(g, { ref: `"group":${used.size},`, hashed: Buffer.from(`${tail}\n`) });
    groupTexts.push(`{${tail.slice(1)}`);
  }
  const agent = events[0]?.agent;
  const tenantText = JSON.stringify(tenant);
  const sourceText = JSON.stringify(source);
  // what the JSON of the request's events begins with (ingest/normalize/event.ts `draft`)
  const shared = agent === undefined ? undefined : `{"tenant_id":${tenantText},"agent":${JSON.stringify(agent)},"source":${sourceText},`;
  const sharedBytes = Buffer.from(shared ?? '');
  const beforeId =
    `{"v":3,"tenant_id":${tenantText},"source":${sourceText},${agent === undefined ? '' : `"agent":${JSON.stringify(agent)},`}` +
    `"request_id":${JSON.stringify(requestId)},"receive_time":${JSON.stringify(receiveTime)},${ID_PREFIX_KEY}`;
  // the id prefix's place is held by zeros until the hash is known
  const idAt = Buffer.byteLength(beforeId);
  const head = `${beforeId}${'0'.repeat(ID_PREFIX_CHARS)}","groups":[${groupTexts.join(',')}],"events":[`;
  const headBytes = Buffer.byteLength(head);
  // per event, where its own JSON continues after what the message holds for it: after the shared
  // beginning, or after the opening brace
  const skips = new Array<number>(n);
  let total = headBytes + 2 + Math.max(0, n - 1);
  for (let i = 0; i < n; i++) {
    const e = events[i]!;
    const g = e.group;
    skips[i] = shared !== undefined && e.json.startsWith(shared) ? shared.length : 1;
    total += 1 + sizes[i]! - (skips[i] === 1 ? 1 : sharedBytes.length) + (g === undefined ? 0 : used.get(g)!.ref.length);
  }
  const data = Buffer.allocUnsafe(total);
  let off = data.write(head, 0);
  const h = createHash('sha256').update(`${tenant}\n${source}\n`);
  for (let i = 0; i < n; i++) {
    const e = events[i]!;
    const g = e.group === undefined ? undefined : used.get(e.group)!;
    data[off++] = 0x7b; // {
    if (g !== undefined) off += data.write(g.ref, off, 'latin1');
    const rest = e.json.slice(skips[i]!);
    const written = data.write(rest, off);
    // the event's v1 JSON: the shared beginning (or the brace), its own fields without the closing
    // brace, then its group's
    h.update(skips[i] === 1 ? OPEN : sharedBytes);
    if (g === undefined) h.update(data.subarray(off, off + written)).update(NEWLINE);
    else h.update(data.subarray(off, off + written - 1)).update(g.hashed);
    off += written;
    if (i < n - 1) data[off++] = COMMA;
  }
  // every event took the bytes its size said: nothing unwritten is left in the message
  if (off + 2 !== total) throw new Error(`batch message of ${total} bytes written to ${off + 2}`);
  data.write(']}', off, 'latin1');
  const msgId = h.digest('hex');
  const idPrefix = msgId.slice(0, ID_PREFIX_CHARS);
  data.write(idPrefix, idAt, 'latin1');
  const eventIds = new Array<string>(n);
  for (let i = 0; i < n; i++) eventIds[i] = eventIdOf(idPrefix, i);
  return { data, msgId, eventIds };
}

export function createPublisher(bus: Bus, metrics: Metrics, opts: PublisherOptions): Publisher {
  const unavailable = metrics.counter('ingest_unavailable_total', '503 answers of the ingest role by reason');
  const latency = metrics.histogram('ingest_publish_duration_seconds', 'Time to publish and acknowledge all batches of one request');
  const cacheMs = opts.backlogCacheMs ?? 250;
  let cached: { at: number; messages: number; bytes: number } | undefined;
  let inflight: Promise<void> | undefined;

  const refuse = (reason: string, message: string, cause?: unknown): never => {
    unavailable.inc({ reason });
    throw new UnavailableError(`ingest is temporarily unavailable (${message}); safe to retry`, opts.retryAfterSeconds, { cause, code: `unavailable_${reason}` });
  };

  const refresh = () => {
    inflight ??= (async () => {
      try {
        cached = { at: Date.now(), ...(await backlog(bus)) };
      } finally {
        inflight = undefined;
      }
    })();
    return inflight;
  };

  return {
    async admit() {
      if (bus.nc.isClosed()) refuse('jetstream_unavailable', 'the message bus is not connected');
      if (!cached || Date.now() - cached.at > cacheMs) {
        try {
          await withTimeout(refresh(), opts.publishTimeoutMs);
        } catch (err) {
          cached = undefined;
          refuse('jetstream_unavailable', 'the message bus does not answer', err);
        }
      }
      if (cached!.messages > opts.maxBacklogMessages || cached!.bytes > opts.maxBacklogBytes) {
        refuse('backlog', 'the ingest backlog is full');
      }
    },
    maxEventBytes() {
      const max = bus.nc.info?.max_payload ?? 1024 * 1024;
      return Math.floor(max * 0.9) - 1024;
    },
    async publish(tenant, source, requestId, receiveTime, events) {
      if (events.length === 0) return [];
      const started = process.hrtime.bigint();
      const sizes = events.map((e) => Buffer.byteLength(e.json));
      // batches are cut by each event's whole size (its group's resource and scope included): a
      // message never holds more than that, as each group is written at most once in it
      const ranges = split(events.map((e, i) => sizes[i]! + (e.group?.bytes ?? 0)), opts.publishBatchEvents, this.maxEventBytes());
      const ids: string[] = [];
      const pending = ranges.map(([from, to]) => {
        const { data, msgId, eventIds } = encodeBatch(tenant, source, requestId, receiveTime, events.slice(from, to), sizes.slice(from, to));
        ids.push(...eventIds);
        // msgID is sent as the Nats-Msg-Id header: the stream's duplicate window drops a retry
        return bus.js.publish(ingestSubject(tenant, source), data, { msgID: msgId, timeout: opts.publishTimeoutMs });
      });
      try {
        await Promise.all(pending);
      } catch (err) {
        const timeout = /timeout/i.test(String((err as Error)?.name)) || (err as { code?: string })?.code === 'TIMEOUT';
        refuse(timeout ? 'publish_timeout' : 'publish_failed', timeout ? 'publish timed out' : 'the message bus refused the batch', err);
      } finally {
        latency.observe({ source }, Number(process.hrtime.bigint() - started) / 1e9);
      }
      return ids;
    },
  };
}

/**
 * What is really waiting to be stored: messages the `store` consumer has not delivered yet plus
 * those delivered and not acknowledged. The stream's own count would also hold messages stranded
 * below the consumer's ack floor, which are never delivered again: counted, they would make ingest
 * refuse traffic for ever. Bytes are the stream's bytes in the same proportion (JetStream keeps no
 * byte count per consumer). Without the consumer (not declared yet) the stream's counts stand.
 */
export async function backlog(bus: Bus): Promise<{ messages: number; bytes: number }> {
  const [stream, consumer] = await Promise.all([
    bus.jsm.streams.info(STREAMS.INGEST.name),
    bus.jsm.consumers.info(CONSUMERS.store.stream, CONSUMERS.store.durable).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    }),
  ]);
  const stored = stream.state.messages;
  if (!consumer || stored === 0) return { messages: stored, bytes: stream.state.bytes };
  const messages = Math.min(stored, consumer.num_pending + consumer.num_ack_pending);
  return { messages, bytes: Math.round((stream.state.bytes * messages) / stored) };
}

/** Index ranges `[from, to)` of batches of at most `maxEvents` events and about `maxBytes` serialized bytes. */
function split(sizes: readonly number[], maxEvents: number, maxBytes: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = 0;
  let bytes = 0;
  for (let i = 0; i < sizes.length; i++) {
    // the prefix of an event (id, receive time, group) is under 120 bytes
    const size = sizes[i]! + 120;
    if (i > from && (i - from >= maxEvents || bytes + size > maxBytes)) {
      out.push([from, i]);
      from = i;
      bytes = 0;
    }
    bytes += size;
  }
  if (sizes.length > from) out.push([from, sizes.length]);
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}
