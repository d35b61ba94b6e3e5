import type { AppContext } from '../../core/http.js';
import { AppError, UnavailableError } from '../../core/errors.js';
import type { Principal } from '../../core/keys.js';
import type { AgentId, EventType, SourceRoute } from '../../schemas/events.js';
import { AGENTS } from '../../schemas/events.js';
import type { IngestDeps } from '../app.js';
import { readBody } from '../body.js';
import { UnknownAgentError } from '../errors.js';
import type { EventDraft } from '../normalize/event.js';
import type { Publisher } from '../publish.js';

/** Shared by every route: auth, body, publishing and counters. */
export interface RouteDeps extends IngestDeps {
  publisher: Publisher;
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
    rejected: (agent, source, type, n = 1) => n > 0 && rejected.inc({ agent, source, type }, n),
  } as IngestCounters;
}

/** `Authorization: Bearer <key>` with the ingest scope; the tenant comes from the key. */
export async function authenticate(deps: IngestDeps, ctx: AppContext): Promise<Principal> {
  const header = ctx.get('authorization');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
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

export async function body(deps: IngestDeps, ctx: AppContext): Promise<Buffer> {
  return readBody(ctx.req, deps.config.ingest.maxBodyBytes);
}

/** Splits off events too large for one bus message (they are rejected, the rest published). */
export function bySize(publisher: Publisher, drafts: Array<{ index: number; draft: EventDraft }>) {
  const limit = publisher.maxEventBytes();
  const fit: typeof drafts = [];
  const oversized: typeof drafts = [];
  for (const d of drafts) (Buffer.byteLength(JSON.stringify(d.draft)) > limit ? oversized : fit).push(d);
  return { fit, oversized, limit };
}

/** Publishes and counts; resolves only after every batch was acknowledged. */
export async function publishDrafts(deps: RouteDeps, ctx: AppContext, tenant: string, source: SourceRoute, drafts: EventDraft[]) {
  const stored = await deps.publisher.publish(tenant, source, ctx.state.requestId, drafts);
  for (const e of stored) deps.counters.accepted(e.agent, source, e.type);
  return stored;
}
