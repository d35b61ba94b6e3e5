import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const SHORT_REF_LENGTH = 8;
export const DEFAULT_MAGIC_PREFIX = 'SVC-FIX-';

/** A fresh 8-character upper-case base36 alias (≈ 41 bits; uniqueness is enforced by a KV create). */
export function newShortRef(): string {
  const bytes = randomBytes(SHORT_REF_LENGTH);
  let out = '';
  // 256 is not a multiple of 36: reject the biased tail of each byte
  for (let i = 0; out.length < SHORT_REF_LENGTH; i++) {
    const b = i < bytes.length ? bytes[i]! : randomBytes(1)[0]!;
    if (b >= 252) continue;
    out += ALPHABET[b % 36];
  }
  return out;
}

export const isShortRef = (s: string) => /^[0-9A-Z]{8}$/.test(s);

/** `SVC-FIX-<SHORTREF>` (prefix configurable). */
export const magicWord = (shortRef: string, prefix = DEFAULT_MAGIC_PREFIX) => `${prefix}${shortRef}`;

/** `svc/fix/<shortref-lowercase>`. */
export const fixBranch = (shortRef: string) => `svc/fix/${shortRef.toLowerCase()}`;

/** Every short ref named in a text by the magic word (PR body) or a fix branch name. */
export function findShortRefs(text: string, prefix = DEFAULT_MAGIC_PREFIX): string[] {
  const out = new Set<string>();
  const esc = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const m of text.matchAll(new RegExp(`${esc}([0-9A-Za-z]{8})(?![0-9A-Za-z])`, 'g'))) out.add(m[1]!.toUpperCase());
  for (const m of text.matchAll(/svc\/fix\/([0-9a-z]{8})(?![0-9a-z])/g)) out.add(m[1]!.toUpperCase());
  return [...out];
}
