/**
 * What every MCP tool module shares: the context a tool runs in, the argument schemas common to
 * many tools, the `{data, warnings}` / `{error}` result shapes, and `createToolKit`, which
 * registers a tool with its annotations, its principal check and its error mapping.
 */
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, ForbiddenError, UnavailableError } from '../core/errors.js';
import type { KeyStore, Principal } from '../core/keys.js';
import type { Logger } from '../core/log.js';
import type { CursorCodec } from '../query/pagination.js';
import type { FixServices } from '../fixes/services.js';
import { MCP_ACTOR } from '../fixes/pipeline.js';
import { asUnavailable } from '../fixes/unavailable.js';

export interface ToolContext {
  keys: KeyStore;
  apiKey: string;
  services: FixServices;
  cursors: CursorCodec;
  now: () => number;
  /** Resolves after `ms` (injectable so waits stay testable). */
  sleep?: (ms: number) => Promise<void>;
  /** Reads conversations for replay sets built from conversation ids or auto-generation. */
  conversations: ConversationSource;
  /** Unexpected (5xx) tool failures are logged here once. */
  log?: Logger;
  /** Most fixes `fixes_drive` advances per pass (default DRIVE_PASS_MAX); more sets coverage_truncated. */
  drivePassCap?: number;
}

export interface ConversationSource {
  firstUserMessages(tenant: string, ids: string[]): Promise<Map<string, string>>;
  recent(tenant: string, limit: number, lookbackDays: number): Promise<string[]>;
}

export const tenantId = z.string().min(1).max(64).optional().describe('Tenant; only needed with a legacy unsigned API key (a signed key carries its tenant).');
export const waitSeconds = (def: number) => z.number().int().min(10).max(600).default(def);
export const pollSeconds = (def: number) => z.number().int().min(2).max(60).default(def);

/** A successful (or, with isError, a failed but answered) result: `{data, warnings}` as JSON text and structured content. */
export function ok(data: unknown, warnings: string[] = [], isError = false): CallToolResult {
  const payload = { data, warnings };
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload as Record<string, unknown>, ...(isError ? { isError: true } : {}) };
}

/**
 * An error result: an AppError keeps its status and code (its message only when exposed), a 503
 * adds `retry_after_seconds` (the routes' Retry-After); anything else is a 500.
 */
export function fail(err: unknown): CallToolResult {
  const e = err instanceof AppError ? err : undefined;
  const error: { status: number; code: string; message: string; retry_after_seconds?: number } = e
    ? { status: e.status, code: e.code, message: e.expose ? e.message : 'internal error' }
    : { status: 500, code: 'internal', message: 'internal error' };
  if (e instanceof UnavailableError) error.retry_after_seconds = e.retryAfterSeconds;
  const payload = { error };
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload, isError: true };
}

export type ToolShape = Record<string, z.ZodType>;

export interface ToolOptions {
  title: string;
  description: string;
  write: boolean;
  destructive?: boolean;
  idempotent?: boolean;
}

/** Registers one tool: `run` receives the parsed arguments and the caller's principal. */
export type DefineTool = <S extends ToolShape>(
  name: string,
  opts: ToolOptions,
  shape: S,
  run: (args: z.infer<z.ZodObject<S>>, p: Principal) => Promise<CallToolResult>,
) => void;

export interface ToolKit {
  tool: DefineTool;
  /** The actor recorded for a change made through MCP (`svc-mcp:<key id>`). */
  actor: (p: Principal) => string;
  /** ctx.sleep, or a real timer when none is given. */
  sleep: (ms: number) => Promise<void>;
}

export function createToolKit(server: McpServer, ctx: ToolContext): ToolKit {
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  /**
   * The caller: a key with the `read` scope (401 without a valid key; an unsigned key needs
   * `tenant_id`, 401). A `tenant_id` other than the key's tenant is a workspace the key is not a
   * member of: 403, as on the routes. Writing tools need the admin role (403).
   */
  const principalFor = async (tenant: string | undefined, write: boolean): Promise<Principal> => {
    const p = await ctx.keys.authenticate(ctx.apiKey, { scope: 'read', requireTenantForLegacy: tenant === undefined });
    if (tenant !== undefined && tenant !== p.tenant) throw new ForbiddenError('the API key is not a member of this workspace');
    if (write && p.role !== 'admin') throw new ForbiddenError('this tool writes and needs an admin API key');
    return p;
  };
  const actor = (p: Principal) => `${MCP_ACTOR}:${p.keyId}`;

  const tool: DefineTool = <S extends ToolShape>(
    name: string,
    opts: ToolOptions,
    shape: S,
    run: (args: z.infer<z.ZodObject<S>>, p: Principal) => Promise<CallToolResult>,
  ) => {
    server.registerTool(
      name,
      {
        title: opts.title,
        description: opts.description,
        inputSchema: shape,
        annotations: { title: opts.title, readOnlyHint: !(opts.write || name === 'fix'), destructiveHint: opts.write ? (opts.destructive ?? false) : false, idempotentHint: opts.idempotent ?? !opts.write, openWorldHint: false },
      },
      (async (args: z.infer<z.ZodObject<S>>) => {
        try {
          const a = args as { tenant_id?: string; wait?: boolean };
          const writes = opts.write || (name === 'fix' && a.wait === true);
          return await run(args, await principalFor(a.tenant_id, writes));
        } catch (err) {
          // NATS or ClickHouse not answering: 503 with retry_after_seconds, not a 500
          const e = asUnavailable(err);
          if (!(e instanceof AppError) || (e.status >= 500 && e.status !== 503)) ctx.log?.error({ err, tool: name }, 'tool failed');
          return fail(e);
        }
      }) as never,
    );
  };

  return { tool, actor, sleep };
}
