import type { ContentBlock } from './events.js';

/**
 * `messages.content_blocks` as stored. A row already holds a message's text in `content`, its tool
 * calls in `tool_calls` (`[{id, name, input}]`, input as JSON text capped at 4,096 characters) and
 * its tool results in `tool_results` (`[{tool_use_id, content, is_error}]`, content capped at 2,048).
 * The blocks as received repeat all of that, so they are stored by reference where a block can be
 * rebuilt exactly from those columns, in one of three forms:
 *
 * - `''`: exactly one text block holding `content` (a prompt, a plain answer);
 * - `~` followed by a JSON array: the blocks in order, where `{"type":"text","n":N}` is the next N
 *   characters of `content` (text blocks are joined by a line break there),
 *   `{"type":"tool_use","c":I}` the I-th entry of `tool_calls` and `{"type":"tool_result","r":J}`
 *   the J-th entry of `tool_results`; any other block is written out;
 * - a JSON array (`[` first, `[]` included): the blocks as received, when no reference applies.
 *
 * A reference form is stored only when rebuilding it gives back the exact JSON of the blocks
 * received (checked as each row is made); otherwise the JSON is. Rows written before hold the JSON
 * in every case; readers go through `parseContentBlocks` / `contentBlocksJson`, which accept all
 * three forms.
 */
export const ELIDED_TEXT_BLOCKS = '';
const REFERENCES = '~';

/** The tool columns of a row as the references need them. */
export interface ToolColumns {
  calls: ReadonlyArray<{ id: string; name: string; input: string }>;
  results: ReadonlyArray<{ tool_use_id: string; content: string; is_error: boolean }>;
}

type Stored = Record<string, unknown>;

/**
 * True when `blocks` say nothing `content` does not: one text block, with that text and no other
 * key, its keys in the order the block is read back with (so the JSON read back is the same text).
 */
function onlyTheContent(blocks: readonly ContentBlock[], content: string): boolean {
  if (blocks.length !== 1) return false;
  const b = blocks[0] as unknown as Record<string, unknown>;
  if (b.type !== 'text' || b.text !== content) return false;
  const keys: string[] = [];
  for (const k in b) if (Object.hasOwn(b, k) && b[k] !== undefined) keys.push(k);
  return keys.length === 2 && keys[0] === 'type' && keys[1] === 'text';
}

/** The blocks with references where a block's content is elsewhere in the row (unchecked). */
function referenced(blocks: readonly ContentBlock[], content: string, tools: ToolColumns): { refs: Stored[]; any: boolean } {
  const refs: Stored[] = [];
  let pos = 0;
  let call = 0;
  let result = 0;
  let any = false;
  for (const block of blocks) {
    const b = block as unknown as Stored;
    if (b.type === 'text' && typeof b.text === 'string') {
      const t = b.text;
      const end = pos + t.length;
      if (content.startsWith(t, pos) && (end === content.length || content.charCodeAt(end) === 0x0a)) {
        refs.push({ type: 'text', n: t.length });
        pos = end + 1;
        any = true;
        continue;
      }
    } else if (b.type === 'tool_use') {
      const i = call++;
      const c = tools.calls[i];
      // an input the column holds whole (not capped), as the object it was
      if (c && typeof b.input === 'object' && b.input !== null && c.id === b.tool_use_id && c.name === b.tool_name && c.input === JSON.stringify(b.input)) {
        refs.push({ type: 'tool_use', c: i });
        any = true;
        continue;
      }
    } else if (b.type === 'tool_result') {
      const j = result++;
      const x = tools.results[j];
      // a text result the column holds whole (not capped)
      if (x && typeof b.content === 'string' && x.tool_use_id === b.tool_use_id && x.content === b.content && x.is_error === (b.is_error === true)) {
        refs.push({ type: 'tool_result', r: j });
        any = true;
        continue;
      }
    }
    refs.push(b);
  }
  return { refs, any };
}

function rebuild(refs: readonly Stored[], content: string, tools: ToolColumns): ContentBlock[] {
  const out: ContentBlock[] = [];
  let pos = 0;
  for (const r of refs) {
    if (r.type === 'text' && typeof r.n === 'number' && !('text' in r)) {
      out.push({ type: 'text', text: content.slice(pos, pos + r.n) });
      pos += r.n + 1;
    } else if (r.type === 'tool_use' && typeof r.c === 'number' && !('input' in r)) {
      const c = tools.calls[r.c];
      let input: unknown = {};
      try {
        input = c ? JSON.parse(c.input) : {};
      } catch {
        // a capped input is not JSON any more: never referenced (the write-time check refuses it)
      }
      out.push({ type: 'tool_use', tool_name: c?.name ?? '', tool_use_id: c?.id ?? '', input });
    } else if (r.type === 'tool_result' && typeof r.r === 'number' && !('content' in r)) {
      const x = tools.results[r.r];
      out.push({ type: 'tool_result', tool_use_id: x?.tool_use_id ?? '', content: x?.content ?? '', is_error: x?.is_error ?? false });
    } else {
      out.push(r as unknown as ContentBlock);
    }
  }
  return out;
}

/**
 * The value stored in `content_blocks` for a message of `content` with these blocks, beside the
 * row's tool columns (the calls of its `tool_use` blocks and the results of its `tool_result`
 * blocks, in block order, as `tool_calls` / `tool_results` hold them).
 */
export function storedContentBlocks(blocks: readonly ContentBlock[], content: string, given: ToolColumns = { calls: [], results: [] }): string {
  if (onlyTheContent(blocks, content)) return ELIDED_TEXT_BLOCKS;
  const json = JSON.stringify(blocks);
  if (blocks.length === 0) return json;
  // the columns as a reader will see them (toolColumnsOf), so the check below is the read's
  const tools = normalized(given);
  const { refs, any } = referenced(blocks, content, tools);
  if (!any) return json;
  // stored by reference only when that gives back exactly what was received
  if (JSON.stringify(rebuild(refs, content, tools)) !== json) return json;
  const stored = REFERENCES + JSON.stringify(refs);
  return stored.length < json.length ? stored : json;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Tool columns with every field of the type it is read as (a value of another type reads as empty). */
function normalized(t: { calls: ReadonlyArray<Stored>; results: ReadonlyArray<Stored> }): ToolColumns {
  return {
    calls: t.calls.map((c) => ({ id: str(c.id), name: str(c.name), input: str(c.input) })),
    results: t.results.map((x) => ({ tool_use_id: str(x.tool_use_id), content: str(x.content), is_error: x.is_error === true })),
  };
}

/** A row's tool columns from their stored JSON text (anything else reads as none). */
function toolColumnsOf(callsJson: string, resultsJson: string): ToolColumns {
  const arr = (text: string): Stored[] => {
    try {
      const v = JSON.parse(text) as unknown;
      return Array.isArray(v) ? (v.filter((x) => !!x && typeof x === 'object') as Stored[]) : [];
    } catch {
      return [];
    }
  };
  return normalized({ calls: arr(callsJson), results: arr(resultsJson) });
}

/** The stored columns a message's blocks are read from. */
export interface StoredBlockColumns {
  content: string;
  content_blocks: string;
  tool_calls: string;
  tool_results: string;
}

/** A stored message's blocks (objects only); a value that is none of the three forms reads as no blocks. */
export function parseContentBlocks(row: StoredBlockColumns): ContentBlock[] {
  const stored = row.content_blocks;
  if (stored === ELIDED_TEXT_BLOCKS) return [{ type: 'text', text: row.content }];
  const refs = stored.startsWith(REFERENCES);
  try {
    const v = JSON.parse(refs ? stored.slice(REFERENCES.length) : stored) as unknown;
    if (!Array.isArray(v)) return [];
    const blocks = v.filter((x) => !!x && typeof x === 'object') as Stored[];
    return refs ? rebuild(blocks, row.content, toolColumnsOf(row.tool_calls, row.tool_results)) : (blocks as unknown as ContentBlock[]);
  } catch {
    return [];
  }
}

/** The JSON of a stored message's blocks (`[]` when it has none). */
export function contentBlocksJson(row: StoredBlockColumns): string {
  const stored = row.content_blocks;
  if (stored !== ELIDED_TEXT_BLOCKS && !stored.startsWith(REFERENCES)) return stored;
  return JSON.stringify(parseContentBlocks(row));
}
