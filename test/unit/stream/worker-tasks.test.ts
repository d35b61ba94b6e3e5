/**
 * The Piscina task modules of the stream role stay pure: none of them loads the embedded engine.
 * A worker that loads it shares the process's engine, and terminating that worker (pool.destroy
 * when the role closes) left every later statement of the process hanging.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const tasksDir = fileURLToPath(new URL('../../../stream/tasks/', import.meta.url));
const tasks = readdirSync(tasksDir).filter((f) => f.endsWith('.js'));

test('there are task modules to check', () => {
  assert.ok(tasks.includes('analyze.js') && tasks.includes('decode.js'), tasks.join(', '));
});

for (const task of tasks) {
  test(`stream/tasks/${task} does not load the embedded engine`, () => {
    const script = `await import(${JSON.stringify(new URL(task, `file://${tasksDir}`).href)}); const maps = (await import('node:fs')).readFileSync('/proc/self/maps', 'utf8'); process.stdout.write(String(/chdb/i.test(maps)));`;
    const loaded = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.is(loaded, 'false');
  });
}

test.run();
