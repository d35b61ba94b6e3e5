import { createHash } from 'node:crypto';
import { isNotFound, type Bus } from '../core/nats.js';
import type { Metrics } from '../core/metrics.js';
import { UnavailableError } from '../core/errors.js';
import type { SourceRoute } from '../schemas/events.js';
import { CONSUMERS, ingestSubject, STREAMS } from '../schemas/subjects.js';
import type { PreparedEvent } from './pipeline.js';

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

/**
 * Content-derived ids: the Nats-Msg-Id hashes tenant, source and the serialized events (which
 * exclude receive time), so a retried request maps to the same messages and JetStream's duplicate
 * window drops them. An event id is the first 96 bits of the message id followed by the event's
 * position in the batch as 8 hex digits: stable across retries, distinct within a batch, and
 * distinct across batches as long as their SHA-256 prefixes are (one hash per batch, not per event).
 */
export function batchIds(tenant: string, source: SourceRoute, events: Array<{ json: string }>): { msgId: string; eventIds: string[] } {
  // fed event by event: no concatenated copy of the batch is built just to be hashed
  const h = createHash('sha256').update(`${tenant}\n${source}\n`);
  for (const e of events) h.update(e.json).update('\n');
  const msgId = h.digest('hex');
  const prefix = msgId.slice(0, 24);
  const eventIds = new Array<string>(events.length);
  for (let i = 0; i < events.length; i++) eventIds[i] = prefix + i.toString(16).padStart(8, '0');
  return { msgId, eventIds };
}

/** The IngestBatch JSON built from pre-serialized events (no second serialization of the events). */
export function batchJson(tenant: string, source: SourceRoute, requestId: string, receiveTime: string, events: PreparedEvent[], ids: string[]): string {
  const head = `{"v":1,"tenant_id":${JSON.stringify(tenant)},"source":${JSON.stringify(source)},"request_id":${JSON.stringify(requestId)},"events":[`;
  const rt = JSON.stringify(receiveTime);
  return head + events.map((e, i) => `{"event_id":"${ids[i]}","receive_time":${rt},${e.json.slice(1)}`).join(',') + ']}';
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
      const groups = split(events, opts.publishBatchEvents, this.maxEventBytes());
      const ids: string[] = [];
      const pending = groups.map((group) => {
        const { msgId, eventIds } = batchIds(tenant, source, group);
        ids.push(...eventIds);
        const data = batchJson(tenant, source, requestId, receiveTime, group, eventIds);
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

/** Batches of at most `maxEvents` events and about `maxBytes` serialized bytes. */
function split(events: PreparedEvent[], maxEvents: number, maxBytes: number): PreparedEvent[][] {
  const out: PreparedEvent[][] = [];
  let cur: PreparedEvent[] = [];
  let bytes = 0;
  for (const d of events) {
    const size = Buffer.byteLength(d.json) + 120;
    if (cur.length && (cur.length >= maxEvents || bytes + size > maxBytes)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(d);
    bytes += size;
  }
  if (cur.length) out.push(cur);
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
