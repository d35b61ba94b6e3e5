/** API key roles and scopes: plain values the CLI's help shows without loading the key store. */
export type KeyRole = 'member' | 'admin';
export type KeyScope = 'ingest' | 'read';
export const KEY_SCOPES: readonly KeyScope[] = ['ingest', 'read'];
