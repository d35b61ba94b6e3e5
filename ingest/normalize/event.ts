import type { AgentId, Attributes, Environment, IngestEvent, SourceRoute } from '../../schemas/events.js';

/** What every normalizer needs to know about the request. */
export interface NormalizeContext {
  tenant: string;
  agent: AgentId;
  source: SourceRoute;
  receiveTime: Date;
  /** `receiveTime` as ISO 8601, formatted once per request rather than once per event. */
  receiveTimeIso?: string;
  /** Request-level environment (direct ingest), else production. */
  environment?: Environment;
}

/** A normalized event before publishing: `event_id` is derived from the published batch. */
export type EventDraft = Omit<IngestEvent, 'event_id'>;

const ENVIRONMENTS: Record<string, Environment> = {
  development: 'development', dev: 'development', local: 'development', test: 'development',
  staging: 'staging', stage: 'staging', stg: 'staging', preprod: 'staging',
  production: 'production', prod: 'production', prd: 'production',
};

/** Environment from resource attributes (`deployment.environment[.name]`, Codex `env`), else production. */
export function environmentOf(resource: Attributes, fallback: Environment = 'production'): Environment {
  for (const key of ['deployment.environment.name', 'deployment.environment', 'env', 'environment']) {
    const v = resource[key];
    if (typeof v === 'string' && ENVIRONMENTS[v.trim().toLowerCase()]) return ENVIRONMENTS[v.trim().toLowerCase()]!;
  }
  return fallback;
}

export const iso = (d: Date) => d.toISOString();

/** Defaults shared by every event without a resource or scope (frozen: serialized once, never mutated). */
const NO_RESOURCE: Attributes = Object.freeze({}) as Attributes;
const NO_SCOPE = Object.freeze({ name: '', version: '', attributes: Object.freeze({}) as Attributes });

export function draft(ctx: NormalizeContext, fields: Partial<EventDraft> & Pick<EventDraft, 'type' | 'name' | 'event_time'>): EventDraft {
  return {
    tenant_id: ctx.tenant,
    agent: ctx.agent,
    source: ctx.source,
    conversation_id: '',
    user_id: '',
    environment: ctx.environment ?? 'production',
    receive_time: ctx.receiveTimeIso ?? iso(ctx.receiveTime),
    sequence: 0,
    trace_id: '',
    span_id: '',
    attributes: {},
    resource: NO_RESOURCE,
    scope: NO_SCOPE,
    ...fields,
  };
}

export function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

/** First non-empty text among attribute keys. */
export function firstText(attrs: Attributes, ...keys: string[]): string {
  for (const k of keys) {
    const t = text(attrs[k]);
    if (t) return t;
  }
  return '';
}
