/**
 * The load generator's HTTP/1.1 connection: one keep-alive TCP socket, one request at a time, the
 * request written as prepared bytes and the response read as far as its status and the end of its
 * body. node:http's client built and parsed every message in JavaScript on the cores the system
 * under test uses: 260–630 µs of the generator's CPU per request (closed and open loop against the
 * bare parse server), as much per event as the bus. What it sends is the same: the method, path and
 * headers node:http sent, the body byte for byte.
 *
 * Responses must carry `Content-Length` or `Transfer-Encoding: chunked` (every server of the bench
 * does); a connection the server closes is opened again for the next request, and the request it
 * was carrying fails, as with node:http.
 */
import { connect, type Socket } from 'node:net';

const CRLFCRLF = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('\r\n0\r\n\r\n');

/** The request line and headers of a POST, as bytes. */
export function requestHead(host: string, path: string, headers: Record<string, string | number>): Buffer {
  let head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return Buffer.from(`${head}\r\n`, 'latin1');
}

interface Pending {
  resolve(status: number): void;
  reject(err: Error): void;
}

/** Where a response's body ends: a length known from its headers, or the end of a chunked body. */
type BodyEnd = { kind: 'length'; end: number } | { kind: 'chunked'; from: number };

/** The status, and where the body ends, of a response whose headers end at `headEnd`; undefined when unreadable. */
function parseHead(buf: Buffer, headEnd: number): { status: number; body: BodyEnd } | undefined {
  const head = buf.toString('latin1', 0, headEnd).toLowerCase();
  const status = Number(head.slice(9, 12));
  if (!head.startsWith('http/1.') || !Number.isInteger(status)) return undefined;
  const bodyStart = headEnd + CRLFCRLF.length;
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) return { status, body: { kind: 'length', end: bodyStart + Number(length[1]) } };
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) return { status, body: { kind: 'chunked', from: bodyStart - 2 } };
  // no body to wait for (1xx, 204, 304 or a response without one)
  return { status, body: { kind: 'length', end: bodyStart } };
}

export class RawConnection {
  private socket: Socket | undefined;
  private pending: Pending | undefined;
  /** What has arrived of the response being read. */
  private received: Buffer | undefined;
  /** Its status and framing, once its headers are in (parsed once per response). */
  private head: ReturnType<typeof parseHead>;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Sends one request (its head and body written together) and resolves with the response's status. */
  request(head: Buffer, body: Buffer): Promise<number> {
    if (this.pending) return Promise.reject(new Error('a request is already in flight on this connection'));
    const socket = this.open();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      socket.cork();
      socket.write(head);
      socket.write(body);
      socket.uncork();
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (err: Error) => {
      if (this.socket === socket) this.socket = undefined;
      this.received = undefined;
      this.head = undefined;
      const p = this.pending;
      this.pending = undefined;
      p?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the server closed the connection')));
    this.socket = socket;
    return socket;
  }

  private onData(chunk: Buffer): void {
    const buf = this.received ? Buffer.concat([this.received, chunk]) : chunk;
    this.received = buf;
    if (!this.head) {
      const headEnd = buf.indexOf(CRLFCRLF);
      if (headEnd < 0) return;
      this.head = parseHead(buf, headEnd);
      if (!this.head) {
        this.socket?.destroy(new Error('unreadable response'));
        return;
      }
    }
    const { status, body: b } = this.head;
    const complete = b.kind === 'length' ? buf.length >= b.end : buf.indexOf(CHUNKED_END, b.from) >= 0;
    if (!complete) return;
    // one request at a time: nothing of a next response can follow in this buffer
    this.received = undefined;
    this.head = undefined;
    const p = this.pending;
    this.pending = undefined;
    p?.resolve(status);
  }
}
