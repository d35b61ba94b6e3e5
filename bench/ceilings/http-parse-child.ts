/**
 * The bare parse server (http-parse.ts) as a process of its own, so that it is measured in the same
 * shape as the ingest role alone (one process, one event loop) under the same load. Prints
 * `port <n>` once listening; exits on SIGTERM.
 */
import { startParseServer } from './http-parse.js';

const server = await startParseServer();
process.stdout.write(`port ${new URL(server.url).port}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
