/**
 * A local fake of the GitHub REST endpoints the fix delivery uses (refs, contents, pulls), on a
 * loopback port, speaking the real request and response shapes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGithub {
  url: string;
  branches: Map<string, string>;
  files: Map<string, { content: string; sha: string }>;
  pulls: Array<{ number: number; head: string; base: string; title: string; body: string; draft: boolean; html_url: string }>;
  requests: Array<{ method: string; path: string; auth: string }>;
  stop(): Promise<void>;
}

export async function startFakeGithub(opts: { owner: string; repo: string; baseBranch?: string }): Promise<FakeGithub> {
  const base = opts.baseBranch ?? 'main';
  let seq = 0;
  const sha = () => (++seq).toString(16).padStart(40, '0');
  const branches = new Map<string, string>([[base, sha()]]);
  const files = new Map<string, { content: string; sha: string }>();
  const pulls: FakeGithub['pulls'] = [];
  const requests: FakeGithub['requests'] = [];
  const prefix = `/repos/${opts.owner}/${opts.repo}`;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const t = Buffer.concat(chunks).toString('utf8');
    return t ? JSON.parse(t) : {};
  };
  const server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(u.pathname);
    requests.push({ method: req.method ?? '', path, auth: String(req.headers.authorization ?? '') });
    if (!String(req.headers.authorization ?? '').startsWith('token ') && !String(req.headers.authorization ?? '').startsWith('Bearer ')) return send(res, 401, { message: 'Requires authentication' });
    if (!path.startsWith(prefix)) return send(res, 404, { message: 'Not Found' });
    const rest = path.slice(prefix.length);
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/git\/ref\/heads\/(.+)$/.exec(rest))) {
      const s = branches.get(m[1]!);
      if (!s) return send(res, 404, { message: 'Not Found' });
      return send(res, 200, { ref: `refs/heads/${m[1]}`, object: { sha: s, type: 'commit' } });
    }
    if (req.method === 'POST' && rest === '/git/refs') {
      const b = await readBody(req);
      const name = String(b.ref).replace(/^refs\/heads\//, '');
      if (branches.has(name)) return send(res, 422, { message: 'Reference already exists' });
      branches.set(name, b.sha);
      return send(res, 201, { ref: b.ref, object: { sha: b.sha, type: 'commit' } });
    }
    if ((m = /^\/contents\/(.+)$/.exec(rest))) {
      const ref = u.searchParams.get('ref') ?? base;
      if (req.method === 'GET') {
        const f = files.get(`${ref}:${m[1]}`) ?? files.get(`${base}:${m[1]}`);
        if (!f) return send(res, 404, { message: 'Not Found' });
        return send(res, 200, { type: 'file', path: m[1], sha: f.sha, content: Buffer.from(f.content).toString('base64'), encoding: 'base64' });
      }
      if (req.method === 'PUT') {
        const b = await readBody(req);
        const key = `${b.branch}:${m[1]}`;
        const cur = files.get(key) ?? files.get(`${base}:${m[1]}`);
        if (cur && b.sha !== cur.sha) return send(res, 409, { message: `${m[1]} does not match ${b.sha}` });
        const f = { content: Buffer.from(b.content, 'base64').toString('utf8'), sha: sha() };
        files.set(key, f);
        branches.set(b.branch, sha());
        return send(res, cur ? 200 : 201, { content: { path: m[1], sha: f.sha }, commit: { sha: branches.get(b.branch) } });
      }
    }
    if (req.method === 'POST' && rest === '/pulls') {
      const b = await readBody(req);
      if (!branches.has(b.head)) return send(res, 422, { message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] });
      if (pulls.some((p) => p.head === b.head)) return send(res, 422, { message: `A pull request already exists for ${opts.owner}:${b.head}.` });
      const number = pulls.length + 1;
      const pr = { number, head: b.head, base: b.base, title: b.title, body: b.body, draft: !!b.draft, html_url: `https://github.example/${opts.owner}/${opts.repo}/pull/${number}` };
      pulls.push(pr);
      return send(res, 201, { ...pr, head: { ref: b.head }, base: { ref: b.base } });
    }
    return send(res, 404, { message: 'Not Found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    branches,
    files,
    pulls,
    requests,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
