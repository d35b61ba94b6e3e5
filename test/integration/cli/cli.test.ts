/**
 * Issue 17 item 6, the command line: errors are one line (the stack only with --debug); `import`
 * reads INGEST_PORT and TRACEHOUSE_KEY as `start` does, names the files it skips and why, warns
 * about history the overview never shows; `status` shows row counts while the system runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';
import { dataPath } from '../../helpers/shared.js';
import { freePort } from '../../../core/nats.js';

let ts: TestSystem;
let env: Record<string, string>;
test.before(async () => {
  ts = await startTestSystem({ roles: ['ingest', 'stream'] });
  env = { DATA_DIR: ts.env.DATA_DIR!, NATS_URL: ts.env.NATS_URL! };
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const STACK_LINE = /^\s+at /m;

test('a failing command prints one line without a stack; --debug prints the stack', async () => {
  const bad = await runCli(['keys', 'create', '--tenant', 'a.b*c', '--role', 'member'], env);
  assert.is(bad.code, 1);
  assert.is(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  assert.match(bad.stderr, /^tracehouse keys: tenant must match/);
  assert.not.match(bad.stderr, STACK_LINE);
  const debug = await runCli(['keys', 'create', '--tenant', 'a.b*c', '--role', 'member', '--debug'], env);
  assert.is(debug.code, 1);
  assert.match(debug.stderr, STACK_LINE);
  const port = await freePort(); // nothing listens there
  const started = Date.now();
  const unreachable = await runCli(['import', dataPath('claude-code-viewer'), '--url', `http://127.0.0.1:${port}`, '--key', 'k'], env, { timeoutMs: 60_000 });
  assert.is(unreachable.code, 1);
  const lines = unreachable.stderr.trim().split('\n').filter((l) => !l.startsWith('importing ') && !l.startsWith('warning:'));
  assert.equal(lines.length, 1, unreachable.stderr);
  assert.match(lines[0]!, new RegExp(`^tracehouse import: cannot reach http://127.0.0.1:${port}: ECONNREFUSED`));
  assert.not.match(unreachable.stderr, STACK_LINE);
  console.log(`  unreachable ingest given up after ${Date.now() - started} ms`);
});

test('import reads INGEST_PORT and TRACEHOUSE_KEY like start, skips unrecognised files with the reason, warns about history older than the overview window', async () => {
  const dir = tempDir('th-import-');
  mkdirSync(join(dir, 'nested'));
  writeFileSync(join(dir, 'notes.txt'), 'hello');
  writeFileSync(join(dir, 'nested', 'config.json'), JSON.stringify({ name: 'not a trajectory', version: 1 }));
  writeFileSync(join(dir, 'nested', 'broken.json'), '{not json');
  writeFileSync(join(dir, 'nested', 'other.jsonl'), '{"kind":"metric","value":1}\n{"kind":"metric","value":2}\n');
  const recent = new Date(Date.now() - 3_600_000).toISOString();
  writeFileSync(join(dir, 'session.jsonl'), JSON.stringify({ type: 'user', sessionId: 'cli-recent', uuid: 'u-1', timestamp: recent, message: { role: 'user', content: 'hello from a recent session' } }) + '\n');
  const port = new URL(ts.ingestUrl).port;
  const r = await runCli(['import', dir, join(dir, 'notes.txt'), dataPath('tau-bench/gpt-4o-airline.json'), '--json'], { ...env, INGEST_PORT: port, TRACEHOUSE_KEY: ts.adminKey }, { timeoutMs: 120_000 });
  assert.is(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.is(summary.files, 2, 'the session log and the trajectories');
  assert.ok(summary.messages > 1 && summary.rejected === 0);
  const skipped = Object.fromEntries(summary.skipped_files.map((f: { file: string; reason: string }) => [f.file.slice(dir.length + 1), f.reason]));
  assert.equal(Object.keys(skipped).sort(), ['nested/broken.json', 'nested/config.json', 'nested/other.jsonl', 'notes.txt']);
  assert.match(skipped['notes.txt'], /not a \.json .* or \.jsonl .* file/);
  assert.match(skipped['nested/config.json'], /not OpenAI-chat trajectories/);
  assert.match(skipped['nested/other.jsonl'], /no Claude Code session entry/);
  assert.match(r.stderr, /skipped .*notes\.txt: not a \.json/);
  // tau-bench has no times: the converter stamps them from a fixed date in 2024
  assert.match(r.stderr, /warning: \d+ of \d+ messages \(\d+ of \d+ conversations entirely\) are older than 90 days/);
  assert.ok(summary.outside_overview > 0 && summary.outside_overview < summary.messages, 'the recent session is inside the window');
  const stored = await eventually(async () => {
    const [row] = await ts.system.rt.store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.messages FINAL WHERE conversation_id = 'cli-recent'");
    return row!.n === '1';
  });
  assert.ok(stored, 'sent to the ingest port of the configuration');
  const none = await runCli(['import', join(dir, 'notes.txt'), '--dry-run'], env);
  assert.is(none.code, 1, 'nothing importable is a failure');
  assert.match(none.stdout, /would import: 0 files.*1 file skipped/);
});

test('status shows row counts while the system runs, asked of the running system', async () => {
  // wait until the import of the test before is stored: the counts then hold still
  const idle = await eventually(async () => {
    const c = await ts.system.rt.bus.jsm.consumers.info('INGEST', 'store');
    return c.num_pending + c.num_ack_pending === 0;
  });
  assert.ok(idle);
  const r = await runCli(['status', '--json'], env);
  assert.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.is(s.tables.source, 'running system');
  const [events] = await ts.system.rt.store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.events');
  assert.ok(s.tables.counts.events > 0);
  assert.is(s.tables.counts.events, Number(events!.n));
  assert.equal(Object.keys(s.tables.counts), ['events', 'spans', 'messages', 'tool_calls', 'conversations']);
  assert.is(s.consumers[0].stranded, 0);
  const text = await runCli(['status'], env);
  assert.match(text.stdout, /TABLE\s+ROWS\s+\(from the running system\)/);
  assert.match(text.stdout, new RegExp(`events\\s+${events!.n}`));
});

test.run();
