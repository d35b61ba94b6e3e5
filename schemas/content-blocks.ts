import type { ContentBlock } from './events.js';

/**
 * `messages.content_blocks` as stored. A message whose blocks are exactly one text block holding
 * its `content` — a prompt, a plain answer — stores the empty string there, so its text is kept
 * once (in `content`) and not twice. Every other list is stored as its JSON, `[]` included.
 *
 * Rows written before this (and rows loaded from elsewhere) hold the JSON in every case; readers
 * go through `contentBlocksJson` / `parseContentBlocks`, which accept both. The JSON read back for
 * an elided list is `[{"type":"text","text":<content>}]`: the same value as was received, though
 * not necessarily the same key order.
 */
export const ELIDED_TEXT_BLOCKS = '';

/** True when `blocks` say nothing `content` does not: one text block, with that text and no other key. */
function onlyTheContent(blocks: readonly ContentBlock[], content: string): boolean {
  if (blocks.length !== 1) return false;
  const b = blocks[0] as unknown as Record<string, unknown>;
  if (b.type !== 'text' || b.text !== content) return false;
  let keys = 0;
  for (const k in b) if (Object.hasOwn(b, k) && b[k] !== undefined) keys++;
  return keys === 2;
}

/** The value stored in `content_blocks` for a message of `content` with these blocks. */
export function storedContentBlocks(blocks: readonly ContentBlock[], content: string): string {
  return onlyTheContent(blocks, content) ? ELIDED_TEXT_BLOCKS : JSON.stringify(blocks);
}

/** The JSON of a stored message's blocks (`[]` when it has none). */
export function contentBlocksJson(stored: string, content: string): string {
  return stored === ELIDED_TEXT_BLOCKS ? JSON.stringify([{ type: 'text', text: content }]) : stored;
}

/** A stored message's blocks (objects only); a value that is not a JSON array reads as no blocks. */
export function parseContentBlocks(stored: string, content: string): ContentBlock[] {
  if (stored === ELIDED_TEXT_BLOCKS) return [{ type: 'text', text: content }];
  try {
    const v = JSON.parse(stored) as unknown;
    return Array.isArray(v) ? (v.filter((x) => !!x && typeof x === 'object') as ContentBlock[]) : [];
  } catch {
    return [];
  }
}
