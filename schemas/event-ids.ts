/** The id of a bus message's event: the message id's first 24 hex digits, then the event's position as 8 (ingest/publish.ts). */
export const eventIdOf = (prefix: string, index: number): string => prefix + index.toString(16).padStart(8, '0');
