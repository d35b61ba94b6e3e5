/**
 * The MCP tool server (official TypeScript SDK): one McpServer per authenticated request (the
 * HTTP transport runs stateless) or per stdio session, with the 27 tools of mcp/tools.ts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { namedQuery, type Store } from '../core/clickhouse.js';
import { createEvidenceReader } from '../fixes/evidence.js';
import { registerTools, type ConversationSource, type ToolContext } from './tools.js';

export const MCP_SERVER_NAME = 'tracehouse';
export const MCP_SERVER_VERSION = '1.0.0';

export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Tracehouse fix pipeline and registries. Typical flow: fixes_draft_batch → fixes_drive → fix (next_steps) → fix_verify → fix_submit. Writing tools run once per call: do not retry them blindly; read the fix first.',
    },
  );
  registerTools(server, ctx);
  return server;
}

export function createConversationSource(store: Store, now: () => number): ConversationSource {
  const evidence = createEvidenceReader(store);
  return {
    firstUserMessages: (tenant, ids) => evidence.scenarios(tenant, ids),
    async recent(tenant, limit, lookbackDays) {
      const since = new Date(now() - lookbackDays * 86_400_000).toISOString().replace('T', ' ').replace('Z', '');
      const rows = await store.query<{ conversation_id: string }>(namedQuery('fix-recent-conversations'), { tenant, since, limit });
      return rows.map((r) => r.conversation_id);
    },
  };
}
