import type { AppContext } from '../../core/http.js';
import { AppError, BadRequestError, UnavailableError, withCause } from '../../core/errors.js';
import { withFields } from '../../core/own.js';
import type { Principal } from '../../core/keys.js';
import type { AgentId, EventType, SourceRoute } from '../../schemas/events.js';
import { AGENTS } from '../../schemas/events.js';
import type { IngestDeps } from '../app.js';
import { CorruptBodyError, readBody } from '../body.js';
import { InvalidEnvelopeError, InvalidJsonError, UnknownAgentError } from '../errors.js';
import { eventBytes, type PipelineTask, type PreparedEvent } from '../pipeline.js';
import type { Publisher } from '../publish.js';
import type { PipelineRunner } from '../runner.js';

/** Shared by every route: auth, body, pipeline, publishing and counters. */
export interface RouteDeps extends IngestDeps {
  publisher: Publisher;
  runner: PipelineRunner;
  counters: IngestCounters;
}

export interface IngestCounters {
  accepted(agent: AgentId, source: SourceRoute, type: EventType, n?: number): void;
  rejected(agent: AgentId, source: SourceRoute, type: string, n?: number): void;
}

export function createCounters(deps: Pick<IngestDeps, 'metrics'>): IngestCounters {
  const accepted = deps.metrics.counter('ingest_events_accepted_total', 'Events accepted (durably published) by agent, source and stored type');
  const rejected = deps.metrics.counter('ingest_events_rejected_total', 'Records or events rejected by agent, source and type (invalid, malformed, oversized)');
  return {
    accepted: (agent, source, type, n = 1) => accepted.inc({ agent, source, type }, n),
    rejected: (agent, source, type, n = 1) => {
      if (n > 0) rejected.inc({ agent, source, type }, n);
    },
  };
}

/** `Authorization: Bearer <key>` with the ingest scope; the tenant comes from the key. */
export async function authenticate(deps: RouteDeps, ctx: AppContext): Promise<Principal> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  try {
    return await deps.keys.authenticate(m?.[1], { scope: 'ingest' });
  } catch (err) {
    if (err instanceof AppError) throw err;
    // the key store lives on the bus: unreachable means "retry later", not a server fault
    throw new UnavailableError('ingest is temporarily unavailable (the key store does not answer); safe to retry', deps.config.ingest.retryAfterSeconds, { cause: err, code: 'unavailable_keys' });
  }
}

export function agentParam(ctx: AppContext): AgentId {
  const agent = String((ctx as unknown as { params: { agent: string } }).params.agent);
  if (!(AGENTS as readonly string[]).includes(agent)) throw new UnknownAgentError(agent);
  return agent as AgentId;
}

/**
 * Reads the body (limits, decompression) and runs the pipeline; its 400s become the route's
 * error shape (OTLP: invalid envelope; hooks and direct: invalid JSON body).
 */
export async function runRequest(
  deps: RouteDeps,
  ctx: AppContext,
  task: Omit<PipelineTask, 'body' | 'receiveTime'>,
): Promise<{ events: PreparedEvent[]; rejected: number; reasons: string[]; rejections: Array<{ index: number; reason: string }>; receiveTime: string }> {
  const otlp = task.route !== 'hooks' && task.route !== 'ingest';
  let body: Buffer;
  try {
    body = await readBody(ctx.req, deps.config.ingest.maxBodyBytes);
  } catch (err) {
    if (!(err instanceof CorruptBodyError)) throw err;
    throw withCause(otlp ? new InvalidEnvelopeError('the compressed body does not inflate') : new InvalidJsonError('the compressed body does not inflate'), err);
  }
  const receiveTime = new Date().toISOString();
  const result = await deps.runner.run(withFields(task, { body, receiveTime }));
  if (result.kind === 'bad_request') throw new BadRequestError(result.message, { code: result.code });
  return withFields(result, { receiveTime });
}

/** Splits off events too large for one bus message (rejected; the rest is published). */
export function bySize(publisher: Publisher, events: PreparedEvent[]) {
  const limit = publisher.maxEventBytes();
  const fit: PreparedEvent[] = [];
  const oversized: PreparedEvent[] = [];
  for (const e of events) (e.json.length + (e.group?.bytes ?? 0) > limit / 3 && eventBytes(e) > limit ? oversized : fit).push(e);
  return { fit, oversized, limit };
}

/** Publishes and counts; resolves only after every batch was acknowledged. Returns event ids in order. */
export async function publishEvents(deps: RouteDeps, ctx: AppContext, tenant: string, source: SourceRoute, receiveTime: string, events: PreparedEvent[]) {
  const ids = await deps.publisher.publish(tenant, source, ctx.state.requestId, receiveTime, events);
  // one increment per (agent, type) of the request, not one per event
  let agent = events[0]?.agent;
  let type = events[0]?.type;
  let n = 0;
  for (const e of events) {
    if (e.agent !== agent || e.type !== type) {
      deps.counters.accepted(agent!, source, type!, n);
      agent = e.agent;
      type = e.type;
      n = 0;
    }
    n++;
  }
  if (n) deps.counters.accepted(agent!, source, type!, n);
  return ids;
}
