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
const ERROR_KEYS = new Set(['error', 'error.message', 'error_message', 'error_details', 'auth.error', 'reason', 'exception.message']);

export const prompt = (text: string): Capped => capBytes(redact(text), LIMITS.promptBytes);
export const command = (text: string): Capped => capBytes(redact(text), LIMITS.commandBytes);
export const errorText = (text: string): Capped => capBytes(redact(text), LIMITS.errorBytes);

/** JSON text of a structured value (tool input), redacted then capped like a command. */
export function jsonText(value: unknown): Capped {
  if (typeof value === 'string') return command(value);
  // texts inside are cut to the cap first: the JSON text is cut to it anyway, and a long text is not serialized whole
  return capBytes(json(redactDeep(value, LIMITS.commandBytes)), LIMITS.commandBytes);
}

/**
 * `jsonText` of a value that `sanitizeAttributes` already stored under a command key (redacted,
 * its texts capped): the same text without walking the value a second time.
 */
export function storedJsonText(stored: unknown): Capped {
  if (typeof stored === 'string') return { text: stored, truncated: false };
  return capBytes(json(stored), LIMITS.commandBytes);
}

function json(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

/**
 * A stored attribute under a prompt, command or error key: a text is redacted and capped; in a
 * structured value (a hook's `tool_input` object, an `error` object) every text inside is redacted
 * and capped the same way, in the one walk redaction makes anyway.
 */
function sanitizeValue(key: string, v: unknown): unknown {
  const k = key;
  if (PROMPT_KEYS.has(k)) return typeof v === 'string' ? prompt(v).text : redactDeep(v, LIMITS.promptBytes);
  if (COMMAND_KEYS.has(k)) return typeof v === 'string' ? command(v).text : redactDeep(v, LIMITS.commandBytes);
  if (ERROR_KEYS.has(k)) return typeof v === 'string' ? errorText(v).text : redactDeep(v, LIMITS.errorBytes);
  return v;
}

/**
 * `sanitizeAttributes` in place, for attribute maps the request owns and reads no more: values
 * are replaced where they change, output keys deleted (only those objects leave V8's fast mode).
 */
export function sanitizeAttributesInPlace(attrs: Attributes): Attributes {
  // for…in: no array of keys per event (a key deleted before its turn is skipped, as with a copy)
  for (const k in attrs) {
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
