import { TOOL_TEXT_MAX_CHARS } from '../schemas/api/conversations.js';
import { parseContentBlocks } from '../schemas/content-blocks.js';

/**
 * Pure: the `tool_calls[]` and `tool_results[]` of a context message, from the JSON text columns
 * of `messages` (tool_calls, tool_results), falling back to the message's content blocks
 * (`tool_use`, `tool_result`). Field spellings of the common producers are accepted
 * (`id`/`tool_use_id`/`call_id`, `name`/`tool_name`, `input`/`arguments`).
 */
export interface ToolCallOut {
  id: string;
  name: string;
  input: string;
}
export interface ToolResultOut {
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

/** Cuts text to `max` characters (code points), the last one being `…` when cut. */
export function truncate(text: string, max = TOOL_TEXT_MAX_CHARS): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return chars.slice(0, max - 1).join('') + '…';
}

function parseArray(text: string): Record<string, unknown>[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    const arr = Array.isArray(v) ? v : v && typeof v === 'object' ? [v] : [];
    return arr.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
  } catch {
    return [];
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
/** Tool inputs and results may be objects, arrays or strings; objects travel as JSON text. */
const asText = (v: unknown): string => {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  if (Array.isArray(v) && v.every((b) => b && typeof b === 'object' && (b as { type?: unknown }).type === 'text')) {
    return v.map((b) => str((b as { text?: unknown }).text)).join('\n');
  }
  return JSON.stringify(v);
};

function toCall(o: Record<string, unknown>): ToolCallOut {
  return {
    id: str(o.id ?? o.tool_use_id ?? o.call_id),
    name: str(o.name ?? o.tool_name),
    input: truncate(asText(o.input ?? o.arguments ?? o.toolCallRequest)),
  };
}

function toResult(o: Record<string, unknown>): ToolResultOut {
  return {
    tool_use_id: str(o.tool_use_id ?? o.id ?? o.call_id),
    content: truncate(asText(o.content ?? o.output ?? o.toolCallResponse)),
    is_error: o.is_error === true || o.is_error === 1 || o.is_error === 'true',
  };
}

export function messageToolParts(columns: { content: string; tool_calls: string; tool_results: string; content_blocks: string }): {
  tool_calls: ToolCallOut[];
  tool_results: ToolResultOut[];
} {
  let calls = parseArray(columns.tool_calls).map(toCall);
  let results = parseArray(columns.tool_results).map(toResult);
  if (calls.length === 0 || results.length === 0) {
    // blocks are stored by reference to these columns where they can be (schemas/content-blocks.ts)
    const blocks = parseContentBlocks(columns) as unknown as Record<string, unknown>[];
    if (calls.length === 0) calls = blocks.filter((b) => b.type === 'tool_use').map(toCall);
    if (results.length === 0) results = blocks.filter((b) => b.type === 'tool_result').map(toResult);
  }
  return { tool_calls: calls, tool_results: results };
}
