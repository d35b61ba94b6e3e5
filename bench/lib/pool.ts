import { workloadRequests, emptyGroundTruth, DEFAULT_WORKLOAD, type WorkloadOptions, type GroundTruth } from '../workload/generate.js';
import type { Format } from '../workload/conversation.js';

/**
 * A pool of pre-encoded requests that a load client replays for as long as a phase lasts.
 * Generating is slower than sending, so bodies are built once; each replay round rewrites the
 * first 8 hex digits of the conversation id in place (same byte length, so protobuf stays valid),
 * which makes every replayed event distinct and keeps content-derived dedup honest.
 */
export interface PoolRequest {
  route: string;
  contentType: string;
  tenant: string;
  format: Format;
  body: Uint8Array;
  events: number;
  /** Byte offsets of the 8-character variant slot of the conversation id. */
  slots: number[];
}

export interface Pool {
  requests: PoolRequest[];
  events: number;
  bytes: number;
  truth: GroundTruth;
}

/** Offsets of every occurrence of the id's variant slot (first 8 hex digits of its uuid part). */
export function variantSlots(body: Uint8Array, conversationId: string): number[] {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const shift = conversationId.startsWith('sess-') ? 5 : 0;
  const out: number[] = [];
  for (let at = buf.indexOf(conversationId); at >= 0; at = buf.indexOf(conversationId, at + 1)) out.push(at + shift);
  return out;
}

/** A copy of the body with the variant slots set to `round` (8 hex digits). */
export function patchBody(req: Pick<PoolRequest, 'body' | 'slots'>, round: number): Buffer {
  const copy = Buffer.allocUnsafe(req.body.byteLength);
  patchBodyInto(req, round, copy);
  return copy;
}

/** The body with the variant slots set to `round`, written into `out` (the body's length). */
export function patchBodyInto(req: Pick<PoolRequest, 'body' | 'slots'>, round: number, out: Buffer): void {
  out.set(req.body);
  const tag = (round >>> 0).toString(16).padStart(8, '0');
  for (const at of req.slots) out.write(tag, at, 'latin1');
}

/** Builds a pool of at least `minEvents` events (whole conversations), duplicates excluded. */
export function buildPool(minEvents: number, overrides: Partial<WorkloadOptions> = {}): Pool {
  const opts: WorkloadOptions = { ...DEFAULT_WORKLOAD, duplicateRate: 0, invalidRate: 0, conversations: 1e9, ...overrides };
  const truth = emptyGroundTruth(opts.seed);
  const requests: PoolRequest[] = [];
  let events = 0;
  let bytes = 0;
  let lastConv = '';
  for (const r of workloadRequests(opts, truth)) {
    // stop at a conversation boundary once enough events are in
    if (events >= minEvents && r.conversationId !== lastConv) break;
    lastConv = r.conversationId;
    const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
    requests.push({ route: r.route, contentType: r.contentType, tenant: r.tenant, format: r.format, body, events: r.events, slots: variantSlots(body, r.conversationId) });
    events += r.events;
    bytes += body.byteLength;
  }
  return { requests, events, bytes, truth };
}

/** Weights that select a single format. */
export function onlyFormat(format: Format): WorkloadOptions['formatWeights'] {
  return formatsOnly([format]);
}

/** Weights that keep these formats, equally. */
export function formatsOnly(formats: readonly Format[]): WorkloadOptions['formatWeights'] {
  const w = { 'otlp-proto-a': 0, 'otlp-json-a': 0, 'otlp-proto-b': 0, 'otlp-json-b': 0, 'hooks-a': 0, direct: 0 };
  for (const f of formats) w[f] = 1;
  return w;
}
