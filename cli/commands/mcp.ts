import { loadClientConfig } from '../../core/config.js';
import { UsageError, flagString } from '../args.js';
import type { Command } from '../command.js';

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'MCP tool server over stdio (for Claude Code, Codex and other MCP clients)',
  usage: `Usage: tracehouse mcp [--url URL] [--api-key KEY]

Serves the Tracehouse MCP tools (prompts, skills, harness, fixes) on stdin/stdout. Every call is
forwarded once to the Streamable HTTP endpoint /mcp of a running query service, so the tools are
the same as over HTTP. Logs go to stderr only.

  --url URL        query service base URL (default $TRACEHOUSE_URL, else http://127.0.0.1:8080)
  --api-key KEY    API key (default $TRACEHOUSE_API_KEY); a signed key carries its tenant, an
                   unsigned legacy key needs tenant_id in each tool call

Configuration for MCP clients: docs/mcp.md.`,
  async run(args) {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const { startStdioBridge } = await import('../../mcp/stdio.js');
    const url = flagString(args, 'url') ?? loadClientConfig().url;
    const apiKey = flagString(args, 'api-key') ?? loadClientConfig().apiKey;
    if (!apiKey) throw new UsageError('an API key is required: --api-key or TRACEHOUSE_API_KEY');
    const bridge = await startStdioBridge({ url, apiKey, transport: new StdioServerTransport() });
    await new Promise<void>((resolve) => {
      process.stdin.on('close', resolve);
      process.stdin.on('end', resolve);
      process.on('SIGINT', resolve);
      process.on('SIGTERM', resolve);
    });
    await bridge.close();
  },
};
