import type { Attributes } from '../../schemas/events.js';
import { redact, redactDeep } from '../redact/redact.js';
import { capBytes, LIMITS, type Capped } from '../redact/cap.js';
import { setOwn } from '../../core/own.js';

/** Keys holding tool output: never stored (spec/ingestion.md Limits: tool output snippets). */
const OUTPUT_KEYS = new Set(['tool_output', 'tool_response', 'output', 'tool_result', 'stdout', 'stderr', 'response_body']);
/** Prompt-like text: redacted, capped to 8 KB. */
const PROMPT_KEYS = new Set(['prompt', 'user_prompt', 'response', 'last_assistant_message', 'custom_instructions', 'compact_summary']);
/** Commands and tool inputs: redacted, capped to 4,096 bytes. */
const COMMAND_KEYS = new Set(['command', 'full_command', 'bash_command', 'tool_parameters', 'tool_input', 'arguments', 'function_args']);
/** Error texts: redacted, capped to 2,048 bytes. */
const ERROR_KEYS = new Set(['error', 'error.message', 'error_message', 'error_details', 'auth.error', 'reason']);

export const prompt = (text: string): Capped => capBytes(redact(text), LIMITS.promptBytes);
export const command = (text: string): Capped => capBytes(redact(text), LIMITS.commandBytes);
export const errorText = (text: string): Capped => capBytes(redact(text), LIMITS.errorBytes);

/** JSON text of a structured value (tool input), redacted then capped like a command. */
export function jsonText(value: unknown): Capped {
  if (typeof value === 'string') return command(value);
  let text: string;
  try {
    text = JSON.stringify(redactDeep(value)) ?? '';
  } catch {
    text = '';
  }
  return capBytes(text, LIMITS.commandBytes);
}

function sanitizeValue(key: string, v: unknown): unknown {
  const k = key;
  if (PROMPT_KEYS.has(k)) return typeof v === 'string' ? prompt(v).text : redactDeep(v);
  if (COMMAND_KEYS.has(k)) return typeof v === 'string' ? command(v).text : redactDeep(v);
  if (ERROR_KEYS.has(k)) return typeof v === 'string' ? errorText(v).text : redactDeep(v);
  return v;
}

/**
 * `sanitizeAttributes` in place, for attribute maps the request owns and reads no more: values
 * are replaced where they change, output keys deleted (only those objects leave V8's fast mode).
 */
export function sanitizeAttributesInPlace(attrs: Attributes): Attributes {
  for (const k of Object.keys(attrs)) {
    if (OUTPUT_KEYS.has(k)) {
      delete attrs[k];
      continue;
    }
    if (k === '__proto__') continue;
    const v = attrs[k];
    const s = sanitizeValue(k, v);
    if (s !== v) attrs[k] = s;
  }
  return attrs;
}

/**
 * The attributes as stored: tool output removed, prompt/command/error texts redacted and capped
 * with the same limits as the facets, so no secret survives in the raw attributes either.
 */
export function sanitizeAttributes(attrs: Attributes): Attributes {
  const out: Attributes = {};
  for (const k of Object.keys(attrs)) {
    if (OUTPUT_KEYS.has(k)) continue;
    setOwn(out, k, sanitizeValue(k, attrs[k]));
  }
  return out;
}
