/**
 * The 27 tools of spec/fix-pipeline.md "Tool interface", registered on an McpServer. A thin
 * adapter: every tool calls the same functions as the HTTP routes (fixes/), never a second
 * implementation. Arguments are snake_case with the spec's bounds and defaults (published through
 * tools/list); results are `{data, warnings}` as JSON text plus structured content.
 * Tenant: the one embedded in the signed API key; `tenant_id` only for legacy unsigned keys.
 * Reads need membership, writing tools the admin role. Writing tools are executed once per call.
 * One module per domain (prompt-tools, skill-tools, harness-tools, fix-tools) registers its tools
 * through the shared tool-kit (context, common arguments, results, error mapping).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerFixTools } from './fix-tools.js';
import { registerHarnessTools } from './harness-tools.js';
import { registerPromptTools } from './prompt-tools.js';
import { registerSkillTools } from './skill-tools.js';
import { createToolKit, type ToolContext } from './tool-kit.js';

export type { ConversationSource, ToolContext } from './tool-kit.js';
export { nextSteps } from './fix-tools.js';

export const WRITING_TOOLS = [
  'prompts_sync',
  'prompts_promote',
  'prompts_ab',
  'prompts_propose',
  'skills_gen',
  'skills_push',
  'skills_proposal_mark_applied',
  'harness_sync',
  'harness_delete',
  'fixes_draft_batch',
  'fixes_drive',
  'fix_start',
  'fix_verify',
  'fix_checkout',
  'fix_submit',
  'fix_mark_applied',
  'fix_dismiss',
] as const;

/** Registers the 27 tools in their tools/list order: prompts, skills, harness, fixes. */
export function registerTools(server: McpServer, ctx: ToolContext): void {
  const kit = createToolKit(server, ctx);
  registerPromptTools(kit, ctx);
  registerSkillTools(kit, ctx);
  registerHarnessTools(kit, ctx);
  registerFixTools(kit, ctx);
}
