import type { AppContext } from '../../core/http.js';
import type { AgentId, SourceRoute } from '../../schemas/events.js';
import { otlpEncoding, type BodyEncoding } from '../body.js';
import { ProtobufTracesUnsupportedError } from '../errors.js';
import { encodeProtoResponse, type Signal } from '../otlp/decode-proto.js';
import { agentParam, authenticate, bySize, runRequest, publishEvents, type RouteDeps } from './common.js';

const REJECTED_KEY: Record<Signal, string> = { logs: 'rejectedLogRecords', traces: 'rejectedSpans', metrics: 'rejectedDataPoints' };
const NOUN: Record<Signal, string> = { logs: 'log record', traces: 'span', metrics: 'data point' };

/** 200 with the Export*ServiceResponse in the request's encoding; partial success when something was rejected. */
function respond(ctx: AppContext, signal: Signal, encoding: BodyEncoding, rejected: number, reasons: string[]): void {
  const errorMessage = rejected ? `${rejected} ${NOUN[signal]}${rejected === 1 ? '' : 's'} rejected: ${[...new Set(reasons)].join('; ')}` : undefined;
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
    // the key first: every route answers 401 to a missing or invalid key, an unknown agent included
    const principal = await authenticate(deps, ctx);
    const agent: AgentId = opts.agentRoute ? agentParam(ctx) : 'otlp';
    const encoding = otlpEncoding(ctx.get('content-type'));
    if (signal === 'traces' && encoding === 'protobuf' && opts.agentRoute) {
      ctx.req.resume();
      throw new ProtobufTracesUnsupportedError();
    }
    // a full bus refuses before the body is read: cheap for the client's retry and for us
    if (signal !== 'metrics') await deps.publisher.admit();
    const source = signal as SourceRoute;
    const out = await runRequest(deps, ctx, { route: source, agent, encoding, tenant: principal.tenant });
    const { fit, oversized, limit } = bySize(deps.publisher, out.events);
    const reasons = [...out.reasons];
    if (oversized.length) reasons.push(`${NOUN[signal]} larger than ${limit} bytes after normalization`);
    deps.counters.rejected(agent, source, signal === 'metrics' ? 'metric' : 'invalid', out.rejected);
    for (const o of oversized) deps.counters.rejected(o.agent, source, o.type);
    await publishEvents(deps, ctx, principal.tenant, source, out.receiveTime, fit);
    respond(ctx, signal, encoding, out.rejected + oversized.length, reasons);
  };
}
