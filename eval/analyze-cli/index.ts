/**
 * The headline figures measured exactly as a user would get them: the real data converted to
 * direct-ingest JSON lines, piped through the `tracehouse analyze` command (a child process), and its
 * output joined with the hand labels of eval/emotions and eval/tool-failures. Frustration F1 per
 * labeled user turn (frustrated = a frustration-family detection scoring ≥ 0.5 on that message);
 * failure categories V-measure, category count and family accuracy over every labeled failed call
 * of the four sources, analyzed as one workspace.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../core/paths.js';
import type { ConversationAnalysis } from '../../stream/analyses/types.js';
import { convertFile, type DirectEvent } from '../../stream/import/index.js';
import { confusion, prf, vMeasure } from '../lib/metrics.js';
import type { EvalModule, EvalSection } from '../lib/report.js';
import { readLabels as readTurnLabels } from '../emotions/labels.js';
import { DEV_DAYS, HELDOUT_DAYS, VIEWER_SESSIONS, dayPath, viewerPath } from '../emotions/turns.js';
import { readLabels as readFailureLabels } from '../tool-failures/labels.js';
import { convertMiniSweAgent } from '../tool-failures/sources.js';
import { dataPath } from '../lib/data.js';
import { readFileSync, readdirSync } from 'node:fs';

/** Runs `tracehouse analyze -` on the events as JSON lines; the output by conversation id. */
function analyze(events: readonly DirectEvent[]): Map<string, ConversationAnalysis> {
  const input = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const r = spawnSync(process.execPath, [join(projectRoot, 'bin', 'tracehouse.js'), 'analyze', '-', '--quiet'], { input, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tracehouse analyze exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  const out = new Map<string, ConversationAnalysis>();
  for (const line of r.stdout.split('\n')) if (line.trim()) {
    const a = JSON.parse(line) as ConversationAnalysis;
    out.set(a.conversation_id, a);
  }
  return out;
}

function frustration(labelFile: string, files: readonly string[]) {
  const results = analyze(files.flatMap((f) => convertFile(f).events));
  const labels = readTurnLabels(labelFile);
  const predicted = labels.map((l) => (results.get(l.conversation_id)?.emotions ?? []).some((d) => d.message_index === l.message_index && d.family === 'frustration' && d.score >= 0.5));
  const missing = labels.filter((l) => !results.has(l.conversation_id)).length;
  return { turns: labels.length, missing, ...prf(confusion(predicted, labels.map((l) => l.frustrated))) };
}

function failures() {
  const direct = (dir: string, pattern: RegExp) => readdirSync(dataPath(dir)).filter((f) => pattern.test(f)).sort().map((f) => dataPath(dir, f));
  const events: DirectEvent[] = [
    ...direct('tau-bench', /^gpt-4o-airline\.json$/).flatMap((f) => convertFile(f).events),
    ...direct('claude-code-viewer', /\.jsonl$/).flatMap((f) => convertFile(f).events),
    ...direct('bookminder-cc-console', /^day-.*\.md$/).flatMap((f) => convertFile(f).events),
    ...direct('agent-trajectories-small', /\.json$/).flatMap((f) => {
      const json = JSON.parse(readFileSync(f, 'utf8')) as unknown;
      const label = f.split('/').pop()!.replace(/\.[^.]+$/, '');
      return Array.isArray(json) && json.every((m) => m && typeof m === 'object' && 'role' in m) ? convertMiniSweAgent(json as Array<{ role?: string }>, label) : convertFile(f).events;
    }),
  ];
  const results = analyze(events);
  const labels = readFailureLabels();
  const classes: string[] = [];
  const clusters: string[] = [];
  let familyHits = 0;
  let missing = 0;
  for (const l of labels) {
    const call = results.get(l.conversation)?.tool_calls.find((c) => c.tool_use_id === l.key);
    if (!call?.category) {
      missing++;
      continue;
    }
    classes.push(l.template);
    clusters.push(call.category.id);
    if (call.category.family === l.family) familyHits++;
  }
  const v = vMeasure(classes, clusters);
  return { failures: labels.length, missing, ...v, categories: new Set(clusters).size, hand: new Set(classes).size, familyAccuracy: familyHits / Math.max(1, classes.length) };
}

async function run(): Promise<EvalSection> {
  const dev = frustration('labels-dev.jsonl', DEV_DAYS.map(dayPath));
  const held = frustration('labels-heldout.jsonl', [...HELDOUT_DAYS.map(dayPath), ...VIEWER_SESSIONS.map(viewerPath)]);
  const f = failures();
  return {
    name: 'analyze-cli',
    title: 'Through `tracehouse analyze` (the command, on direct-event JSON lines)',
    tables: [
      {
        title: 'Frustrated user turns (hand labels of eval/emotions)',
        columns: ['set', 'turns', 'precision', 'recall', 'F1', 'labels without output'],
        rows: [
          ['development (BookMinder 002–010)', dev.turns, dev.precision, dev.recall, dev.f1, dev.missing],
          ['held out (BookMinder 017–021, claude-code-viewer)', held.turns, held.precision, held.recall, held.f1, held.missing],
        ],
      },
      {
        title: 'Failure categories, the four sources as one workspace (hand templates of eval/tool-failures)',
        columns: ['failures', 'V-measure', 'homogeneity', 'completeness', 'categories', 'hand templates', 'ratio', 'family accuracy', 'labels without a category'],
        rows: [[f.failures, f.v, f.homogeneity, f.completeness, f.categories, f.hand, f.categories / Math.max(1, f.hand), f.familyAccuracy, f.missing]],
      },
    ],
    notes: [
      'Targets of the conversation-signals work: frustration F1 ≥ 0.75 on real coding transcripts; categories V ≥ 0.95, count within 1.3× of the hand templates, family accuracy ≥ 0.85.',
      'The labels are ours (eval/emotions/RULES.md, eval/tool-failures/RULES.md); the same command is also judged against labels held outside the project.',
    ],
    figures: {
      frustration_f1_dev: dev.f1,
      frustration_f1_heldout: held.f1,
      categories_v_measure: f.v,
      categories_count_ratio: f.categories / Math.max(1, f.hand),
      family_accuracy: f.familyAccuracy,
    },
  };
}

export const analyzeCliEval: EvalModule = { name: 'analyze-cli', run };
