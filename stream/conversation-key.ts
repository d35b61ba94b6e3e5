/**
 * The key of one conversation across tenants, `tenant\u0000conversation`: what the sink collects
 * for the conversations a message changes, what analysis jobs are published for, and what an
 * analysis batch's reads and writes are matched by.
 */
export const conversationKey = (tenantId: string, conversationId: string): string => `${tenantId}\u0000${conversationId}`;
