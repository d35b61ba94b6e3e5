import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logger on stderr-free stdout; child loggers carry `role` and, per request, `requestId`. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid, ...bindings },
      redact: { paths: ['*.authorization', '*.["x-api-key"]', 'key', 'secret', '*.secret'], censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
