/**
 * What the edge checks so that every event it acknowledges is insertable (docs/ingestion.md
 * "Limits" and "What the store would refuse"): nesting depth, measured without recursion. The
 * repair of text the store refuses (half of a surrogate pair) is core/row-text.ts `repairSerialized`.
 */
import protobuf from 'protobufjs';

/** Deepest nesting of objects and arrays in a JSON body, counted from the top value. */
export const MAX_JSON_DEPTH = 128;
/**
 * Deepest nesting of protobuf messages in an OTLP protobuf body: protobufjs's own recursion limit
 * (`Reader.recursionLimit`, 100, as protoc's), so both refuse the same bodies.
 */
export const MAX_PROTO_DEPTH: number = (protobuf.Reader as unknown as { recursionLimit?: number }).recursionLimit ?? 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when `text` (JSON, parsed or not) nests objects and arrays deeper than `limit`. One pass,
 * no recursion and no allocation: brackets inside strings are skipped by jumping from quote to
 * unescaped quote. Invalid JSON is left to the parser (the answer is then false or true at random,
 * and either way the body is refused).
 */
export function jsonDeeperThan(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // jump to the closing quote: the first one preceded by an even run of backslashes
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return false;
        let b = q - 1;
        while (text.charCodeAt(b) === BACKSLASH) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * True when the protobuf `buf` of message type `type` nests messages deeper than `limit` (the top
 * message is level 1). Walks the wire format with an explicit stack, entering only fields the
 * schema declares as messages. Used to explain a body protobufjs refused; malformed input gives false.
 */
export function protoDeeperThan(type: protobuf.Type, buf: Uint8Array, limit: number): boolean {
  const stack: Array<{ type: protobuf.Type; end: number }> = [{ type, end: buf.length }];
  let pos = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (pos >= buf.length) return -1;
      const b = buf[pos++]!;
      if (shift < 32) v += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return v;
    }
    return -1;
  };
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (pos >= top.end) {
      stack.pop();
      continue;
    }
    const tag = varint();
    if (tag < 0) return false;
    const wire = tag % 8;
    if (wire === 0) {
      if (varint() < 0) return false;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const len = varint();
      if (len < 0 || pos + len > top.end) return false;
      const field = top.type.fieldsById[Math.floor(tag / 8)];
      const sub = field?.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
      if (!sub) pos += len;
      else {
        if (stack.length + 1 > limit) return true;
        stack.push({ type: sub, end: pos + len });
      }
    } else return false;
  }
  return false;
}
