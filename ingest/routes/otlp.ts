import type { AppContext } from '../../core/http.js';
import type { AgentId, SourceRoute } from '../../schemas/events.js';
import { BadRequestError } from '../../core/errors.js';
import { bodyText, CorruptBodyError, otlpEncoding, type BodyEncoding } from '../body.js';
import { InvalidEnvelopeError } from '../errors.js';
import { decodeLogs, decodeMetrics, decodeSpans, type IdFormat } from '../otlp/decode-envelope.js';
import { decodeProto, encodeProtoResponse, type Signal } from '../otlp/decode-proto.js';
import type { Decoded } from '../otlp/types.js';
import type { EventDraft, NormalizeContext } from '../normalize/event.js';
import { normalizeLog } from '../normalize/logs.js';
import { normalizeSpan } from '../normalize/spans.js';
import { agentParam, authenticate, body, bySize, publishDrafts, type RouteDeps } from './common.js';

const REJECTED_KEY: Record<Signal, string> = { logs: 'rejectedLogRecords', traces: 'rejectedSpans', metrics: 'rejectedDataPoints' };
const NOUN: Record<Signal, string> = { logs: 'log record', traces: 'span', metrics: 'data point' };

/** Parses the envelope of either encoding into the OTLP/JSON shape. */
async function envelope(deps: RouteDeps, ctx: AppContext, signal: Signal, encoding: BodyEncoding): Promise<{ value: unknown; ids: IdFormat }> {
  let raw: Buffer;
  try {
    raw = await body(deps, ctx);
  } catch (err) {
    if (err instanceof CorruptBodyError) throw new InvalidEnvelopeError('the compressed body does not inflate', { cause: err });
    throw err;
  }
  if (encoding === 'protobuf') return { value: decodeProto(signal, raw), ids: 'base64' };
  const text = bodyText(raw);
  if (text.trim() === '') return { value: {}, ids: 'hex' };
  try {
    return { value: JSON.parse(text), ids: 'hex' };
  } catch (err) {
    throw new InvalidEnvelopeError('the body is not valid JSON', { cause: err });
  }
}

function respond(ctx: AppContext, signal: Signal, encoding: BodyEncoding, rejected: number, reasons: string[]): void {
  const errorMessage = rejected
    ? `${rejected} ${NOUN[signal]}${rejected === 1 ? '' : 's'} rejected: ${[...new Set(reasons)].join('; ')}`
    : undefined;
  ctx.status = 200;
  if (encoding === 'protobuf') {
    ctx.type = 'application/x-protobuf';
    ctx.body = encodeProtoResponse(signal, { rejected, errorMessage });
    return;
  }
  ctx.body = { partialSuccess: rejected ? { [REJECTED_KEY[signal]]: rejected, errorMessage } : {} };
}

/** POST /v1/otel/{agent}/{logs,traces,metrics} and the generic /v1/{logs,traces,metrics}. */
export function otlpHandler(deps: RouteDeps, signal: Signal, opts: { agentRoute: boolean }) {
  return async (ctx: AppContext) => {
    const agent: AgentId = opts.agentRoute ? agentParam(ctx) : 'otlp';
    const principal = await authenticate(deps, ctx);
    const encoding = otlpEncoding(ctx.get('content-type'));
    if (signal === 'traces' && encoding === 'protobuf' && opts.agentRoute) {
      ctx.req.resume();
      throw new BadRequestError('protobuf traces are unsupported on /v1/otel/{agent}/traces: send OTLP/JSON, or protobuf to /v1/traces', {
        code: 'protobuf_traces_unsupported',
      });
    }
    // a full bus refuses before the body is read: cheap for the client's retry and for us
    if (signal !== 'metrics') await deps.publisher.admit();
    const { value, ids } = await envelope(deps, ctx, signal, encoding);
    const source = signal as SourceRoute;
    if (signal === 'metrics') {
      const m = decodeMetrics(value);
      deps.counters.rejected(agent, source, 'metric', m.rejected);
      return respond(ctx, signal, encoding, m.rejected, m.reasons);
    }
    const nctx: NormalizeContext = { tenant: principal.tenant, agent, source, receiveTime: new Date() };
    const decoded: Decoded<unknown> = signal === 'logs' ? decodeLogs(value, ids) : decodeSpans(value, ids);
    const drafts: Array<{ index: number; draft: EventDraft }> = decoded.items.map((item, index) => ({
      index,
      draft: signal === 'logs' ? normalizeLog(nctx, item as never, index) : normalizeSpan(nctx, item as never, index),
    }));
    const { fit, oversized, limit } = bySize(deps.publisher, drafts);
    const reasons = [...decoded.reasons];
    if (oversized.length) reasons.push(`${NOUN[signal]} larger than ${limit} bytes after normalization`);
    deps.counters.rejected(agent, source, 'invalid', decoded.rejected);
    for (const o of oversized) deps.counters.rejected(o.draft.agent, source, o.draft.type);
    await publishDrafts(deps, ctx, principal.tenant, source, fit.map((f) => f.draft));
    respond(ctx, signal, encoding, decoded.rejected + oversized.length, reasons);
  };
}
