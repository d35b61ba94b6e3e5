import { createServer, type Server } from 'node:http';
import { decodeProto } from '../workload/protobuf.js';

/**
 * The HTTP edge ceiling: a bare node:http server that reads each body and parses it (JSON.parse,
 * or a full protobuf decode) and answers 200, nothing else. The ingest edge is compared with it.
 */
export async function startParseServer(): Promise<{ url: string; parsedEvents: () => number; close(): Promise<void> }> {
  let events = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        if (req.headers['content-type'] === 'application/x-protobuf') {
          const msg = decodeProto(body, 'ExportLogsServiceRequest') as { resourceLogs?: Array<{ scopeLogs?: Array<{ logRecords?: unknown[] }> }> };
          for (const rl of msg.resourceLogs ?? []) for (const sl of rl.scopeLogs ?? []) events += sl.logRecords?.length ?? 0;
        } else {
          const json = JSON.parse(body.toString('utf8'));
          events += Array.isArray(json) ? json.length : Array.isArray(json.events) ? json.events.length : 1;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    parsedEvents: () => events,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
