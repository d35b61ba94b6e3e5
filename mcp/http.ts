/**
 * MCP over Streamable HTTP at /mcp on the query service (stateless: every POST carries its own
 * `x-api-key`; responses are JSON). GET and DELETE answer 405 (no server-initiated streams, no
 * sessions). The key is checked before the request reaches the MCP server: 401 without a valid key,
 * 403 without the `read` scope (as on the data API), 503 with Retry-After when the key store (NATS)
 * does not answer.
 */
import type Router from '@koa/router';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestState } from '../core/http.js';
import type { KeyStore } from '../core/keys.js';
import type { Logger } from '../core/log.js';
import { BadRequestError, PayloadTooLargeError } from '../core/errors.js';
import type { FixServices } from '../fixes/services.js';
import { asUnavailable } from '../fixes/unavailable.js';
import type { CursorCodec } from '../query/pagination.js';
import type { Store } from '../core/clickhouse.js';
import { createConversationSource, createMcpServer } from './server.js';

export const MCP_PATH = '/mcp';
/** Large enough for a 2,000,000-byte harness graph with its envelope. */
const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

export interface McpMountDeps {
  keys: KeyStore;
  services: FixServices;
  log: Logger;
  cursors: CursorCodec;
  store: Store;
  now: () => number;
}

export function mountMcp(router: Router<RequestState>, deps: McpMountDeps): void {
  const conversations = createConversationSource(deps.store, deps.now);
  router.post('mcp', MCP_PATH, async (ctx) => {
    const apiKey = ctx.get('x-api-key') || '';
    try {
      await deps.keys.authenticate(apiKey || undefined, { scope: 'read' });
    } catch (err) {
      throw asUnavailable(err);
    }
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > MAX_MCP_BODY_BYTES) throw new PayloadTooLargeError(MAX_MCP_BODY_BYTES);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of ctx.req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > MAX_MCP_BODY_BYTES) throw new PayloadTooLargeError(MAX_MCP_BODY_BYTES);
      chunks.push(c);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new BadRequestError('MCP request body is not valid JSON');
    }
    const server = createMcpServer({ keys: deps.keys, apiKey, services: deps.services, cursors: deps.cursors, now: deps.now, conversations, log: deps.log });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res, body);
  });
  const notAllowed = async (ctx: { status: number; body: unknown; set: (k: string, v: string) => void }) => {
    ctx.status = 405;
    ctx.set('allow', 'POST');
    ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless (POST only)' }, id: null };
  };
  router.get('mcpGet', MCP_PATH, notAllowed);
  router.delete('mcpDelete', MCP_PATH, notAllowed);
}
