import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../core/paths.js';
import { detectEmotions } from '../../../stream/analyses/emotions.js';
import { snapshotsFromDirectEvents } from '../../../stream/analyses/direct-input.js';
import { EMOTION_FAMILIES, EMOTION_SIGNALS, type Elicitor, type Trajectory } from '../../../stream/analyses/types.js';
import { convertFile } from '../../../stream/import/index.js';
import { dataPath } from '../../helpers/shared.js';

const schema = JSON.parse(readFileSync(join(projectRoot, 'schemas', 'emotions.json'), 'utf8')) as {
  'x-taxonomy': Array<{ family: string; definition: string; signals: Array<{ signal: string; definition: string }> }>;
  'x-trajectories': Array<{ trajectory: string }>;
  'x-elicitors': Array<{ elicitor: string }>;
  properties: Record<string, { enum?: string[] }>;
};

// every value of the TypeScript unions, so a change on either side fails here
const TRAJECTORIES: Record<Trajectory, true> = { none: true, building: true, peak: true, resolved: true, sustained: true };
const ELICITORS: Record<Elicitor, true> = { agent: true, external: true, user: true, ambiguous: true };

test('schemas/emotions.json holds the taxonomy of types.ts: 6 families, 16 signals, with definitions', () => {
  const taxonomy = schema['x-taxonomy'];
  assert.equal(taxonomy.map((f) => f.family), [...EMOTION_FAMILIES]);
  for (const f of taxonomy) {
    assert.equal(f.signals.map((s) => s.signal), [...EMOTION_SIGNALS[f.family as keyof typeof EMOTION_SIGNALS]]);
    assert.ok(f.definition.length > 10 && f.signals.every((s) => s.definition.length > 5));
  }
  assert.is(taxonomy.flatMap((f) => f.signals).length, 16);
  assert.equal(schema.properties.family!.enum, [...EMOTION_FAMILIES]);
  assert.equal(schema.properties.signal!.enum, EMOTION_FAMILIES.flatMap((f) => EMOTION_SIGNALS[f]));
  assert.equal(schema['x-trajectories'].map((t) => t.trajectory), Object.keys(TRAJECTORIES));
  assert.equal(schema.properties.trajectory!.enum, Object.keys(TRAJECTORIES));
  assert.equal(schema['x-elicitors'].map((e) => e.elicitor), Object.keys(ELICITORS));
  assert.equal(schema.properties.elicitor!.enum, Object.keys(ELICITORS));
});

test('on real transcripts every detection fits the schema, quotes are verbatim, signals belong to their family', () => {
  const validate = new Ajv({ strict: false }).compile(schema);
  const files = ['day-004.md', 'day-010.md', 'day-018.md'].map((f) => dataPath('bookminder-cc-console', f));
  let detections = 0;
  for (const file of files) {
    for (const s of snapshotsFromDirectEvents(convertFile(file).events, { nowMs: 0 }).snapshots) {
      const d = detectEmotions(s);
      assert.equal(detectEmotions(s), d, 'deterministic');
      for (const x of d) {
        detections++;
        assert.ok(validate(x), JSON.stringify(validate.errors));
        assert.ok(EMOTION_SIGNALS[x.family].includes(x.signal));
        const m = s.messages[x.message_index]!;
        assert.is(m.role, 'user');
        for (const q of x.quotes) assert.ok(m.text.includes(q), `quote not in message ${x.message_index}: ${q}`);
      }
    }
  }
  assert.ok(detections > 50, `only ${detections} detections`);
});

test.run();
