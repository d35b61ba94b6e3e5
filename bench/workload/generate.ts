import { conversations, DEFAULT_CONVERSATION_OPTIONS, FORMATS, type Conversation, type ConversationOptions, type Format } from './conversation.js';
import { agentARecords, agentBRecords, encodeLogsJson, encodeLogsProto } from './otlp.js';
import { agentAHooks, directEvents } from './hooks-direct.js';
import { createRng, deriveSeed } from './rng.js';

export interface WorkloadOptions extends ConversationOptions {
  /** Conversations to generate. */
  conversations: number;
  /** Events per request at most (an exporter's batch). */
  maxEventsPerRequest: number;
  /** Fraction of requests sent a second time with identical bytes (exporter retries). */
  duplicateRate: number;
  /** Extra invalid events per valid hook/direct event (hooks without a name, messages without a role). */
  invalidRate: number;
}

export const DEFAULT_WORKLOAD: WorkloadOptions = {
  ...DEFAULT_CONVERSATION_OPTIONS,
  conversations: 200,
  maxEventsPerRequest: 100,
  duplicateRate: 0.02,
  invalidRate: 0.01,
};

/** One HTTP request of the workload, ready to send. */
export interface WireRequest {
  format: Format;
  /** Path on the ingest address. */
  route: string;
  contentType: 'application/json' | 'application/x-protobuf';
  tenant: string;
  body: string | Uint8Array;
  /** Events (log records, hook payloads, direct events) in the body, invalid ones included. */
  events: number;
  invalidEvents: number;
  duplicate: boolean;
  conversationId: string;
}

/** What the generator produced for one tenant (or in total). Duplicates are not counted twice. */
export interface Truth {
  conversations: number;
  /** Conversation turns (user prompts and assistant answers) of the model. */
  messages: number;
  tool_calls: number;
  tool_errors: number;
  /** Distinct valid events sent (log records, hook payloads, direct events). */
  events: number;
  /** Direct-ingest events that are messages (turns plus tool-result messages). */
  direct_message_events: number;
  invalid_events: number;
  duplicate_requests: number;
  /** Events inside duplicate requests. */
  duplicate_events: number;
}

export interface GroundTruth {
  seed: number;
  totals: Truth;
  tenants: Record<string, Truth>;
  formats: Record<Format, { requests: number; events: number; bytes: number }>;
  /** Message counts of every conversation, in generation order (for length-distribution checks). */
  lengths: number[];
}

export const ROUTES: Record<Format, string> = {
  'otlp-proto-a': '/v1/otel/agent-a/logs',
  'otlp-json-a': '/v1/otel/agent-a/logs',
  'otlp-proto-b': '/v1/otel/agent-b/logs',
  'otlp-json-b': '/v1/otel/agent-b/logs',
  'hooks-a': '/v1/otel/agent-a/hooks',
  direct: '/v1/ingest',
};

const emptyTruth = (): Truth => ({
  conversations: 0, messages: 0, tool_calls: 0, tool_errors: 0, events: 0,
  direct_message_events: 0, invalid_events: 0, duplicate_requests: 0, duplicate_events: 0,
});

export function emptyGroundTruth(seed: number): GroundTruth {
  const formats = Object.fromEntries(FORMATS.map((f) => [f, { requests: 0, events: 0, bytes: 0 }])) as GroundTruth['formats'];
  return { seed, totals: emptyTruth(), tenants: {}, formats, lengths: [] };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The requests that carry one conversation, before duplicates. */
export function conversationRequests(c: Conversation, opts: Pick<WorkloadOptions, 'maxEventsPerRequest' | 'invalidRate' | 'seed'>): WireRequest[] {
  const rng = createRng(deriveSeed(opts.seed ^ 0x5eed, c.index));
  const route = ROUTES[c.format];
  const base = { format: c.format, route, tenant: c.tenant, duplicate: false, conversationId: c.id };
  if (c.format.startsWith('otlp-')) {
    const spec = c.format.endsWith('-a') ? agentARecords(c) : agentBRecords(c);
    const proto = c.format.startsWith('otlp-proto');
    return chunks(spec.records, opts.maxEventsPerRequest).map((records) => {
      const batch = { resource: spec.resource, scope: spec.scope, records };
      return {
        ...base,
        contentType: proto ? ('application/x-protobuf' as const) : ('application/json' as const),
        body: proto ? encodeLogsProto(batch) : encodeLogsJson(batch),
        events: records.length,
        invalidEvents: 0,
      };
    });
  }
  const items = c.format === 'hooks-a' ? agentAHooks(c) : directEvents(c).events;
  const withInvalid: Array<{ item: Record<string, unknown>; invalid: boolean }> = [];
  for (const item of items) {
    withInvalid.push({ item, invalid: false });
    // hooks: agent A requires `hook`; direct messages require `role` (tool_call events have none)
    const required = c.format === 'hooks-a' ? 'hook' : 'role';
    if (required in item && rng.chance(opts.invalidRate)) {
      const { [required]: _dropped, ...rest } = item;
      withInvalid.push({ item: rest, invalid: true });
    }
  }
  return chunks(withInvalid, opts.maxEventsPerRequest).map((part) => {
    const list = part.map((p) => p.item);
    return {
      ...base,
      contentType: 'application/json' as const,
      body: JSON.stringify(c.format === 'hooks-a' ? list : { environment: c.environment, events: list }),
      events: part.length,
      invalidEvents: part.filter((p) => p.invalid).length,
    };
  });
}

function count(truth: GroundTruth, tenant: string, fn: (t: Truth) => void): void {
  fn(truth.totals);
  fn((truth.tenants[tenant] ??= emptyTruth()));
}

/** Adds one conversation (its model counts) to the ground truth. */
export function recordConversation(truth: GroundTruth, c: Conversation): void {
  truth.lengths.push(c.messages.length);
  let calls = 0;
  let errors = 0;
  for (const m of c.messages) {
    calls += m.toolCalls.length;
    for (const tc of m.toolCalls) if (!tc.success) errors++;
  }
  const directMessages = c.format === 'direct' ? directEvents(c).messageEvents : 0;
  count(truth, c.tenant, (t) => {
    t.conversations++;
    t.messages += c.messages.length;
    t.tool_calls += calls;
    t.tool_errors += errors;
    t.direct_message_events += directMessages;
  });
}

/** Adds one sent request to the ground truth. */
export function recordRequest(truth: GroundTruth, r: WireRequest): void {
  const f = truth.formats[r.format];
  f.requests++;
  f.bytes += typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.byteLength;
  if (r.duplicate) {
    count(truth, r.tenant, (t) => {
      t.duplicate_requests++;
      t.duplicate_events += r.events;
    });
    return;
  }
  f.events += r.events;
  count(truth, r.tenant, (t) => {
    t.events += r.events - r.invalidEvents;
    t.invalid_events += r.invalidEvents;
  });
}

/**
 * Lazily yields the workload's requests in conversation order, updating `truth` as it goes: each
 * conversation's requests, with a request repeated right after itself at `duplicateRate`.
 */
export function* workloadRequests(opts: WorkloadOptions, truth: GroundTruth = emptyGroundTruth(opts.seed), from = 0): Generator<WireRequest> {
  const dupRng = createRng(deriveSeed(opts.seed, 0xd0d0));
  for (const c of conversations(opts, opts.conversations, from)) {
    recordConversation(truth, c);
    for (const r of conversationRequests(c, opts)) {
      recordRequest(truth, r);
      yield r;
      if (dupRng.chance(opts.duplicateRate)) {
        const dup = { ...r, duplicate: true };
        recordRequest(truth, dup);
        yield dup;
      }
    }
  }
}

/** The whole workload in memory (for tests and small runs). */
export function generateWorkload(partial: Partial<WorkloadOptions> = {}): { requests: WireRequest[]; truth: GroundTruth; options: WorkloadOptions } {
  const options = { ...DEFAULT_WORKLOAD, ...partial };
  const truth = emptyGroundTruth(options.seed);
  const requests = [...workloadRequests(options, truth)];
  return { requests, truth, options };
}
