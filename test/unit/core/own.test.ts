import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ts from 'typescript';
import { withFields } from '../../../core/own.js';
import { projectRoot } from '../../../core/paths.js';
import { mulberry32 } from '../../../core/random.js';

test('withFields gives the spread’s object: the same keys in the same order, the later value for a shared key', () => {
  const rand = mulberry32(7);
  const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  for (let round = 0; round < 500; round++) {
    const pick = () => Object.fromEntries(keys.filter(() => rand() < 0.5).sort(() => rand() - 0.5).map((k) => [k, Math.floor(rand() * 10)]));
    const base = pick();
    const fields = pick();
    const before = JSON.stringify(base);
    const got = withFields(base, fields);
    const want = { ...base, ...fields };
    assert.equal(Object.keys(got), Object.keys(want));
    assert.equal(JSON.stringify(got), JSON.stringify(want));
    assert.is(JSON.stringify(base), before, 'the base is not changed');
    assert.is.not(got, base);
  }
});

/**
 * The code that runs per event or per row builds objects without a spread followed by properties
 * (`{ ...base, a, b }`): in Node 20 each such property costs about 1 µs (core/own.ts `withFields`,
 * docs/stream.md "Objects built after a spread"). The edge, the stream (its jobs and problem passes
 * excepted: they run per tenant) and the query service's row mapping are checked.
 */
const HOT = ['ingest', 'stream', 'query/repo', 'schemas/attribute-refs.ts', 'schemas/content-blocks.ts'];
const COLD = ['stream/jobs', 'stream/problems'];

function sources(path: string): string[] {
  const abs = join(projectRoot, path);
  if (!statSync(abs).isDirectory()) return [abs];
  return readdirSync(abs).flatMap((name) => {
    const p = join(path, name);
    if (COLD.includes(p)) return [];
    if (statSync(join(projectRoot, p)).isDirectory()) return sources(p);
    return name.endsWith('.ts') ? [join(projectRoot, p)] : [];
  });
}

test('no object literal in the per-event and per-row code starts with a spread and adds properties after it', () => {
  const found: string[] = [];
  const files = HOT.flatMap(sources);
  assert.ok(files.length > 100, `${files.length} source files found`);
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isObjectLiteralExpression(n) && n.properties.length > 1 && ts.isSpreadAssignment(n.properties[0]!) && n.properties.some((p) => !ts.isSpreadAssignment(p))) {
        const line = sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
        found.push(`${relative(projectRoot, file)}:${line} ${n.getText().replace(/\s+/g, ' ').slice(0, 80)}`);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  assert.equal(found, [], `use withFields (core/own.ts):\n${found.join('\n')}`);
});

test.run();
