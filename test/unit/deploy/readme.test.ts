import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES } from '../../../core/config.js';
import { projectRoot } from '../../../core/paths.js';
import { commands } from '../../../cli/commands/index.js';

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));

test('the quick start is the two commands, and package.json backs them', () => {
  assert.match(readme, /npm ci && npm start/);
  assert.match(readme, /\nnpm test\b/);
  assert.ok(pkg.scripts.start && pkg.scripts.test && pkg.scripts.prepare, 'npm ci builds through prepare');
  assert.is(pkg.bin.tracehouse, 'bin/tracehouse.js');
});

test('the configuration table lists every variable the code reads, with its default', () => {
  for (const v of CONFIG_VARIABLES) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${v.name}\` |`));
    assert.ok(row, `README row for ${v.name}`);
    if (v.default) assert.ok(row!.includes(v.default), `${v.name} default ${v.default}`);
  }
});

test('every CLI command is in the README table', () => {
  for (const c of commands) assert.ok(readme.includes(`\`${c.name}`) , c.name);
});

test('every doc the README points to exists', () => {
  for (const m of readme.matchAll(/`((?:docs|bench)\/[\w.-]+\.md)`/g)) {
    assert.ok(readFileSync(join(projectRoot, m[1]!), 'utf8').length > 200, m[1]);
  }
});

test.run();
