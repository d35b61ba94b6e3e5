/**
 * The CLI loads a command's code only when that command runs: `tracehouse --help` and
 * `tracehouse <command> --help` load none of the roles, the store client or the NATS client.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../../core/paths.js';
import { tempDir } from '../../helpers/tmp.js';

const hooks = pathToFileURL(join(projectRoot, 'dist', 'test', 'helpers', 'record-loads.js')).href;
const dir = tempDir('th-loads-');
let runs = 0;
const register = `data:text/javascript,import{register}from"node:module";register(${JSON.stringify(hooks)})`;

/** The modules (ours relative to dist/, packages by name) that `tracehouse <args>` resolves. */
function loadsOf(args: string[]): { code: number | null; ours: string[]; packages: string[]; stdout: string } {
  const file = join(dir, `loads-${++runs}.txt`);
  const r = spawnSync(process.execPath, ['--import', register, join(projectRoot, 'bin', 'tracehouse.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', RECORD_LOADS_FILE: file },
    encoding: 'utf8',
  });
  const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const dist = pathToFileURL(join(projectRoot, 'dist')).href + '/';
  const ours = urls.filter((u) => u.startsWith(dist)).map((u) => u.slice(dist.length));
  const packages = [...new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter((p): p is string => !!p))];
  return { code: r.status, ours, packages, stdout: r.stdout };
}

/** Role code, the store and the bus; the file converters (stream/import/) are plain functions the import and analyze commands share. */
const HEAVY = /^(stream\/(?!import\/)|query\/|ingest\/|fixes\/|mcp\/)|^core\/(clickhouse|runtime|nats)\.js$/;

test('tracehouse --help lists the commands without loading any role, the store or the bus', () => {
  const r = loadsOf(['--help']);
  assert.is(r.code, 0);
  assert.match(r.stdout, /Commands:\n\s+start /);
  assert.ok(r.ours.includes('cli/main.js'), 'the hooks saw the CLI load');
  assert.equal(r.ours.filter((m) => HEAVY.test(m)), []);
  assert.equal(r.packages.filter((p) => /^(chdb|@clickhouse\/client|@nats-io\/.*|koa|piscina|@modelcontextprotocol\/sdk)$/.test(p)), []);
});

test('each command prints its usage without loading its implementation', () => {
  for (const cmd of ['start', 'status', 'keys', 'dlq', 'migrate', 'mcp', 'analyze', 'retry-analyses', 'replay-worker']) {
    const r = loadsOf([cmd, '--help']);
    assert.is(r.code, 0, cmd);
    assert.match(r.stdout, new RegExp(`^Usage:[\\s\\S]*tracehouse ${cmd}`), cmd);
    assert.equal(r.ours.filter((m) => HEAVY.test(m)), [], cmd);
  }
});

test.run();
