import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../core/paths.js';
import { mayHoldSecret, redact, redactUnhinted } from '../../../ingest/redact/redact.js';
import { mulberry32 } from '../../../core/random.js';

const dir = join(projectRoot, 'test', 'fixtures', 'redaction');
const secrets = (JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as Array<{ text: string }>).map((s) => s.text);
const prose = JSON.parse(readFileSync(join(dir, 'prose.json'), 'utf8')) as string[];

/** Deterministic PRNG so a failure is reproducible. */
const rng = mulberry32;

const FRAGMENTS = [
  'PASSWORD', 'password', 'Pass', 'pass:', 'passed', 'pwd', 'Secret', 'secretary', 'TOKEN', 'tokens', 'api_key', 'apiKey',
  'Authorization', 'proxy-authorization', 'Bearer', 'basic', 'Cookie', 'set-cookie', 'x-api-key', 'X-Signature', 'private-token',
  'dsn', 'DATABASE_URL', 'webhook-url', 'connection_string', 'credentials', 'auth', 'author', 'mysql', 'sshpass', ' -u ', ' --user ',
  '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----', 'AKIA', 'ghp_', 'sk-', 'sk_live_', 'AIza', 'npm_', 'eyJ', 'SG.',
  'https://', 'postgres://', '@', ':', '=', ' = ', ': ', '"', "'", ' ', '\n', '--', '-p', 'is', '$TOKEN', '<key>', '***',
  'abc123XYZ789def456', 'hunter2hunter2', 'Zm9vYmFyYmF6cXV4cXV1eA==', 'ABCDEFGHIJKLMNOP', '0123456789abcdef0123456789abcdef',
  // pieces that join into triggers only across fragment borders
  'sk', '-', '-----', 'BEGIN ', 'k_', 'live_', 'gh', 'p_', 'Ke', 'y', 'PA', 'SS', '\t',
  'the', 'build', 'fix the test', 'file', 'path', 'count', 'ok', '.', ',', ';', '&', '{', '}', 'x',
];

test('the hints never change a result: corpus strings equal the unhinted rules', () => {
  for (const s of [...secrets, ...prose]) assert.is(redact(s), redactUnhinted(s), s);
});

test('the hints never change a result: 30,000 generated strings', () => {
  const next = rng(20261122);
  for (let i = 0; i < 30_000; i++) {
    const n = 1 + Math.floor(next() * 12);
    let s = '';
    for (let j = 0; j < n; j++) s += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
    assert.is(redact(s), redactUnhinted(s), JSON.stringify(s));
  }
});

test('ordinary coding prose passes the gate without a rule scan', () => {
  for (const s of ['fix the failing test in src/index.ts', 'run npm test and check the output', 'Refactor the cache module, then update the schema']) assert.is(mayHoldSecret(s), false, s);
  // a gate hit only means the exact per-rule hints look at it
  assert.is(redact('tests passed: 12 of 14 checks'), 'tests passed: 12 of 14 checks');
  for (const s of secrets) assert.ok(mayHoldSecret(s), s);
});

test.run();
