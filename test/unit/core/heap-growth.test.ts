import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const configModule = new URL('../../../core/config.js', import.meta.url).href;

/**
 * The limits V8 sets after full collections in a fresh process whose configuration came from
 * `env`: each `[HeapController] Limit` line of V8's verbose collector trace ends with the factor
 * it applied to the live size.
 */
function limitFactors(env: Record<string, string>): string[] {
  const script = [
    `const { applyHeapGrowth, loadConfig } = await import(${JSON.stringify(configModule)});`,
    'applyHeapGrowth(loadConfig(process.env));',
    // live objects, then two full collections: each sets the next limit from what it kept
    'globalThis.kept = Array.from({ length: 200000 }, (_, i) => ({ i, s: `v${i}` }));',
    'gc(); gc();',
  ].join('\n');
  const r = spawnSync(process.execPath, ['--expose-gc', '--trace-gc-verbose', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
  return [...r.stdout.matchAll(/\[HeapController\] Limit: .*\(([\d.]+)\)$/gm)].map((m) => m[1]);
}

test('the configured heap growth is the factor V8 applies after each full collection', () => {
  const byDefault = limitFactors({});
  assert.ok(byDefault.length >= 2, 'no limit line in the trace');
  assert.ok(byDefault.every((f) => f === '2.5'), `default 150%: factors ${byDefault.join(', ')}`);
  assert.ok(limitFactors({ NODE_HEAP_GROWTH_PERCENT: '300' }).every((f) => f === '4.0'));
  // 0: V8 chooses from its collector's speed, never our fixed factor
  const own = limitFactors({ NODE_HEAP_GROWTH_PERCENT: '0' });
  assert.ok(own.length >= 2 && own.every((f) => f !== '2.5'), `V8's own: factors ${own.join(', ')}`);
});

test.run();
