/**
 * The key of one conversation across tenants, `tenant\u0000conversation`: what the sink collects
 * for the conversations a message changes, what analysis jobs are published for, and what an
 * analysis batch's reads and writes are matched by.
 */
export const conversationKey = (tenantId: string, conversationId: string): string => `${tenantId}\u0000${conversationId}`;

/**
 * The tenant and conversation of a key: split at its first NUL, which a tenant id never holds
 * (`TENANT_PATTERN`). A conversation id may hold NUL (the edge stores NUL characters as sent), and
 * stays whole.
 */
export function splitConversationKey(key: string): [tenantId: string, conversationId: string] {
  const at = key.indexOf('\u0000');
  return [key.slice(0, at), key.slice(at + 1)];
}
