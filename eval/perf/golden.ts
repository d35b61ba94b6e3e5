/**
 * Golden outputs of the conversation analyses: a hash of every analyzer's output over fixed
 * datasets (the real conversations of ../shared/data through `tracehouse analyze`'s offline path,
 * the windows and the long conversation the cost bench runs on, and the generated sets of the
 * evaluation), kept in eval/perf/golden-analyses.json. A change that is meant to leave the
 * analyses as they are (a faster implementation) must leave every hash as it is; a change of what an
 * analyzer outputs shows here and comes with its version bump and a rewritten file
 * (`npm run golden:analyses -- --write`).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import { analyzeDirectEvents } from '../../stream/analyses/offline.js';
import { analyzeSnapshot } from '../../stream/analyses/pipeline.js';
import { createCategoryRegistry } from '../../stream/analyses/tool-failure-categories.js';
import type { ConversationAnalysis } from '../../stream/analyses/types.js';
import { workspaceEnv } from '../../stream/analyses/workspace.js';
import { convertFile, type DirectEvent } from '../../stream/import/index.js';
import { generateConversations } from '../emotions/generator.js';
import { generateHallucinationSet } from '../hallucinations/generator.js';
import { generateLazySet } from '../laziness/generator.js';
import { dataPath, evalPath } from '../lib/data.js';
import { generateSegmentSet } from '../segments/generator.js';
import { convertMiniSweAgent } from '../tool-failures/sources.js';
import { longConversation, realEvents, windows } from './corpus.js';

export const GOLDEN_FILE = evalPath('perf', 'golden-analyses.json');

/** Per dataset: conversation count and one hash per output field of the analysis (plus `errors`). */
export type GoldenHashes = Record<string, Record<string, string | number>>;

interface Dataset {
  name: string;
  /** Analyses of the dataset, in a fixed order, with the analyzers' failures. */
  run(): { results: ConversationAnalysis[]; errors: string[] };
}

const files = (dir: string, pattern: RegExp) => readdirSync(dataPath(dir)).filter((f) => pattern.test(f)).sort().map((f) => dataPath(dir, f));

/** As `tracehouse analyze` does: the whole input one workspace, categories primed, user memory carried. */
function offline(name: string, events: () => readonly unknown[]): Dataset {
  return {
    name,
    run() {
      const out = analyzeDirectEvents(events(), { workspace: workspaceEnv, nowMs: 0 });
      return { results: out.results, errors: out.errors.map((e) => `${e.conversation_id} ${e.analyzer}: ${e.error}`) };
    },
  };
}

/** As the cost bench does: each conversation alone with a fresh category registry. */
function perConversation(name: string, events: () => readonly unknown[]): Dataset {
  return {
    name,
    run() {
      const errors: string[] = [];
      const results = snapshotsFromDirectEvents(events(), { nowMs: 0 }).snapshots.map((s) => {
        const { analysis, outcomes } = analyzeSnapshot(s, { categories: createCategoryRegistry([], { tenantSeed: s.tenantId }) });
        for (const o of outcomes) if (!o.ok) errors.push(`${s.conversationId} ${o.name}: ${o.error}`);
        return analysis;
      });
      return { results, errors };
    },
  };
}

function trajectories(): DirectEvent[] {
  return files('agent-trajectories-small', /\.json$/).flatMap((f) => {
    const json = JSON.parse(readFileSync(f, 'utf8')) as unknown;
    const label = basename(f).replace(/\.[^.]+$/, '');
    return Array.isArray(json) && json.every((m) => m && typeof m === 'object' && 'role' in m) ? convertMiniSweAgent(json as Array<{ role?: string }>, label) : convertFile(f).events;
  });
}

let real: unknown[] | undefined;
const realOnce = () => (real ??= realEvents());

/** Every dataset of the golden file, cheapest first. */
export const DATASETS: readonly Dataset[] = [
  offline('agent-trajectories', trajectories),
  offline('generated-hallucinations', () => generateHallucinationSet(21, 300).flatMap((g) => g.events)),
  offline('generated-laziness', () => generateLazySet(7, 300).flatMap((g) => g.events)),
  offline('generated-segments', () => generateSegmentSet(11, 200).flatMap((g) => g.events)),
  offline('generated-emotions', () => generateConversations(20250301, 200).events),
  offline('claude-code-viewer', () => files('claude-code-viewer', /\.jsonl$/).flatMap((f) => convertFile(f).events)),
  offline('bookminder', () => files('bookminder-cc-console', /^day-\d+\.md$/).flatMap((f) => convertFile(f).events)),
  offline('tau-bench', () => convertFile(dataPath('tau-bench', 'gpt-4o-airline.json')).events),
  perConversation('bench-30-message-windows', () => windows(realOnce(), 30).flat()),
  perConversation('bench-2000-message-conversation', () => longConversation(realOnce(), 2000)),
];

/** Hashes of one dataset's analyses: one per output field, each over every conversation in order. */
export function hashDataset(d: Dataset): Record<string, string | number> {
  const { results, errors } = d.run();
  const fields = new Map<string, ReturnType<typeof createHash>>();
  for (const r of results) {
    for (const [k, v] of Object.entries(r)) {
      let h = fields.get(k);
      if (!h) fields.set(k, (h = createHash('sha256')));
      h.update(`${r.conversation_id}\u0000${JSON.stringify(v) ?? 'undefined'}\n`);
    }
  }
  const out: Record<string, string | number> = { conversations: results.length };
  for (const k of [...fields.keys()].sort()) out[k] = fields.get(k)!.digest('hex').slice(0, 24);
  out.errors = createHash('sha256').update(errors.join('\n')).digest('hex').slice(0, 24);
  return out;
}

export function computeGolden(names?: readonly string[]): GoldenHashes {
  const out: GoldenHashes = {};
  for (const d of DATASETS) if (!names || names.includes(d.name)) out[d.name] = hashDataset(d);
  return out;
}

export function readGolden(): GoldenHashes {
  return JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as GoldenHashes;
}

/** Every difference between expected and actual hashes, as "dataset field: expected → actual". */
export function goldenDiff(expected: GoldenHashes, actual: GoldenHashes): string[] {
  const diff: string[] = [];
  for (const [name, got] of Object.entries(actual)) {
    const want = expected[name];
    if (!want) {
      diff.push(`${name}: not in the golden file`);
      continue;
    }
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) if (want[k] !== got[k]) diff.push(`${name} ${k}: ${want[k] ?? '(absent)'} → ${got[k] ?? '(absent)'}`);
  }
  return diff;
}
