/**
 * MCP over stdio (`tracehouse mcp`): a local server on stdin/stdout that forwards tools/list and
 * every tools/call, once and unchanged, to the Streamable HTTP endpoint /mcp of a running query
 * service with the user's API key. The tools, their schemas and their behaviour are therefore
 * exactly those of the HTTP transport (one implementation). A harness graph above the limit is
 * refused locally, before upload.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_GRAPH_BYTES } from '../fixes/harness.js';
import { MCP_SERVER_NAME, MCP_SERVER_VERSION } from './server.js';

/** Longest tool call (max_wait_seconds 600 plus slack). */
const CALL_TIMEOUT_MS = 660_000;

export interface StdioBridge {
  close(): Promise<void>;
}

export async function startStdioBridge(opts: { url: string; apiKey: string; transport: Transport }): Promise<StdioBridge> {
  const endpoint = new URL('/mcp', opts.url);
  const client = new Client({ name: `${MCP_SERVER_NAME}-stdio`, version: MCP_SERVER_VERSION });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { 'x-api-key': opts.apiKey } } }));
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: {} }, instructions: client.getInstructions() });
  server.setRequestHandler(ListToolsRequestSchema, async (req) => client.listTools(req.params, { timeout: CALL_TIMEOUT_MS }));
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    if (req.params.name === 'harness_sync') {
      const graph = (req.params.arguments as { graph?: unknown } | undefined)?.graph;
      const bytes = graph === undefined ? 0 : Buffer.byteLength(JSON.stringify(graph));
      if (bytes > MAX_GRAPH_BYTES) {
        const payload = { error: { status: 400, code: 'graph_too_large', message: `graph is ${bytes} bytes; the limit is ${MAX_GRAPH_BYTES} (not uploaded)` } };
        return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload, isError: true };
      }
    }
    // sent once: no retry of any tool call (writing tools must never run twice)
    return (await client.callTool(req.params, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
  });
  await server.connect(opts.transport);
  return {
    async close() {
      await server.close();
      await client.close();
    },
  };
}
