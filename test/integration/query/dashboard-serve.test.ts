/**
 * The query role serves the dashboard on its own origin: the page shell for the dashboard's paths
 * (with a content security policy that allows only this origin), its bundle, and /openapi.json
 * without a key — while every data route still needs one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';

let ts: TestSystem;
test.before(async () => {
  ts = await startTestSystem({ roles: ['query'] });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

test('dashboard paths answer the page shell; the bundle is served; no third-party origin is allowed', async () => {
  for (const path of ['/', '/conversations?environment=staging', '/conversations/a%2Fb', '/use-cases', '/tool-failures/Bash', '/api', '/sign-in']) {
    const r = await http(`${ts.queryUrl}${path}`);
    assert.is(r.status, 200, path);
    assert.match(r.headers.get('content-type') ?? '', /text\/html/);
    assert.match(r.text, /<script type="module" src="\/assets\/app.js">/);
    assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  }
  const js = await http(`${ts.queryUrl}/assets/app.js`);
  assert.is(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  // URLs in the bundle: only XML namespace names (www.w3.org), nothing to load
  const urls = [...js.text.matchAll(/https?:\/\/[a-z0-9.-]+/g)].map((m) => m[0]);
  assert.ok(urls.every((u) => u === 'http://www.w3.org'), urls.join(' '));
  assert.is((await http(`${ts.queryUrl}/assets/app.css`)).status, 200);
  for (const bad of ['/assets/missing.js', '/assets/..%2f..%2fpackage.json', '/assets/index.html']) assert.is((await http(`${ts.queryUrl}${bad}`)).status, 404, bad);
});

test('/openapi.json needs no key and equals the keyed document; data routes still need the key', async () => {
  const open = await http(`${ts.queryUrl}/openapi.json`);
  assert.is(open.status, 200);
  const keyed = await http(`${ts.queryUrl}/api/v1/data/openapi.json`, { headers: { 'x-api-key': ts.adminKey } });
  assert.equal(open.body, keyed.body);
  for (const path of ['/api/v1/data/overview', '/api/v1/data/openapi.json', '/api/v1/data/nothing-here', '/api/v1']) {
    const r = await http(`${ts.queryUrl}${path}`);
    assert.ok(r.status === 401 || r.status === 404, `${path}: ${r.status}`);
    assert.not.match(r.text, /<html/, path);
  }
  assert.is((await http(`${ts.queryUrl}/api/v1/data/overview`)).body.message, 'API key is required');
  assert.is((await http(`${ts.queryUrl}/not-a-page`)).status, 404);
});

test.run();
