/**
 * Problems runs, incremental vs full, on a big tenant:
 * `node dist/bench/problems.js [--conversations 300] [--copies 30] [--changed 10]`.
 *
 * Starts the whole system in-process (like the integration suites: own nats-server, own chDB data
 * directory), ingests `--conversations` generated support conversations with planted causes
 * (eval/problems/generator.ts) and lets the stream role analyze them, then copies their analysis
 * rows `--copies` times under new conversation ids inside the engine (a tenant of
 * conversations × (copies + 1)). Then times, through `runProblemsOnce`: the first run (full), a
 * forced full run, and an incremental run after `--changed` conversations were re-analyzed (their
 * rows written again under a new version), each with the read / engine split. The watermark margin
 * is 0 here (every copied row is younger than the default 10 minutes). Prints a table; writes
 * nothing to the repository. Figures go to docs/analyses.md ("Incremental runs").
 */
import { startTestSystem, eventually } from '../test/helpers/system.js';
import { http } from '../test/helpers/http.js';
import { runProblemsOnce } from '../stream/problems/api.js';
import { runEngine } from '../stream/problems/engine.js';
import { createProblemsStore, signalInputOf } from '../stream/problems/store.js';
import { generateProblemSet } from '../eval/problems/generator.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
};
const N = Number(arg('conversations', '300'));
const COPIES = Number(arg('copies', '30'));
const CHANGED = Number(arg('changed', '10'));
const TENANT = 'default';
const TABLES = ['conversations', 'conversation_tool_calls', 'emotion_detections', 'laziness_detections', 'hallucination_findings', 'step_scores', 'conversation_segments'];
const log = (m: string) => process.stderr.write(`${m}\n`);

async function main() {
  const ts = await startTestSystem({ stream: { tenantJobs: [] } });
  const store = ts.system.rt.store;
  const count = async (sql: string) => Number((await store.query<{ n: string }>(sql, { t: TENANT }))[0]!.n);
  try {
    const events = generateProblemSet(77, N, Date.now()).flatMap((c) => c.events);
    for (let i = 0; i < events.length; i += 600) {
      const r = await http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events: events.slice(i, i + 600) } });
      if (r.status >= 300) throw new Error(`ingest: ${r.status} ${r.text}`);
    }
    const ps = createProblemsStore(store);
    let last = '';
    let since = Date.now();
    await eventually(
      async () => {
        const n = await count(`SELECT count() AS n FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String}`);
        const mark = await ps.inputMark(TENANT);
        if (mark !== last) [last, since] = [mark, Date.now()];
        return n >= N && Date.now() - since > 5000 ? true : undefined;
      },
      { timeoutMs: 900_000, intervalMs: 1000 },
    );
    log(`analyzed ${N} conversations; copying ×${COPIES}`);
    for (let k = 1; k <= COPIES; k++) {
      for (const t of TABLES) {
        await store.command(
          `INSERT INTO {{db}}.${t} SELECT * REPLACE (concat(conversation_id, '~${k}') AS conversation_id) FROM (SELECT * FROM {{db}}.${t} FINAL WHERE tenant_id = {t:String} AND position(conversation_id, '~') = 0)`,
          { t: TENANT },
        );
      }
    }
    for (const t of TABLES) log(`${t}: ${await count(`SELECT count() AS n FROM {{db}}.${t} FINAL WHERE tenant_id = {t:String}`)} rows`);
    const convs = await count(`SELECT count() AS n FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String}`);
    const deps = { store, watermarkMarginMs: 0 };
    const timed = async <T>(fn: () => Promise<T>) => {
      const t0 = performance.now();
      const v = await fn();
      return { v, ms: performance.now() - t0 };
    };

    const first = await timed(() => runProblemsOnce(deps, TENANT));
    const full = await timed(() => runProblemsOnce(deps, TENANT, { full: true }));
    // the read and engine parts of a full run
    const readAll = await timed(() => ps.readConversationSignals(TENANT));
    const input = signalInputOf(readAll.v);
    const prevRun = (await ps.currentRun(TENANT))!;
    const previous = await ps.loadProblems(TENANT, prevRun.run_id);
    const previousAttributions = await ps.loadAttributionIndex(TENANT, prevRun.run_id);
    const engine = await timed(async () => runEngine({ tenant: TENANT, runId: 'bench', now: Date.now(), signals: input.signals, previous, previousAttributions, feedback: [], blended: input.blended, conversationCount: input.conversations }));

    // re-analysis of a few conversations: their rows written again under a newer version
    const ids = (await store.query<{ conversation_id: string }>(`SELECT conversation_id FROM {{db}}.conversations FINAL WHERE tenant_id = {t:String} ORDER BY cityHash64(conversation_id) LIMIT ${CHANGED}`, { t: TENANT })).map((r) => r.conversation_id);
    const version = String(Date.now() * 1000);
    for (const t of TABLES) {
      await store.command(`INSERT INTO {{db}}.${t} SELECT * REPLACE (toUInt64(${version}) AS version) FROM (SELECT * FROM {{db}}.${t} FINAL WHERE tenant_id = {t:String} AND conversation_id IN {ids:Array(String)})`, { t: TENANT, ids });
    }
    const readChanged = await timed(() => ps.readConversationSignals(TENANT, ids));
    const readStored = await timed(() => ps.loadStoredSignals(TENANT, new Set(ids)));
    const inc = await timed(() => runProblemsOnce(deps, TENANT));

    const s = inc.v.stats!;
    const rows = [
      ['tenant', `${convs} conversations, ${s.signals} signals, ${s.cause_signals} cause signals`],
      ['first run (full)', `${(first.ms / 1000).toFixed(2)} s (${first.v.stats?.incremental?.mode})`],
      ['forced full run', `${(full.ms / 1000).toFixed(2)} s`],
      ['  read every conversation from the analysis tables', `${(readAll.ms / 1000).toFixed(2)} s`],
      ['  engine pass over every signal', `${(engine.ms / 1000).toFixed(2)} s`],
      [`incremental run, ${CHANGED} conversations changed`, `${(inc.ms / 1000).toFixed(2)} s (${s.incremental?.mode}: read ${s.incremental?.read_conversations}, reused ${s.incremental?.reused_conversations})`],
      ['  read the changed conversations', `${(readChanged.ms / 1000).toFixed(2)} s`],
      ['  read the signal store', `${(readStored.ms / 1000).toFixed(2)} s`],
      ['speed-up of the run', `${(full.ms / inc.ms).toFixed(1)}×`],
    ];
    const w = Math.max(...rows.map((r) => r[0]!.length));
    for (const [k, v] of rows) process.stdout.write(`${k!.padEnd(w)}  ${v}\n`);
  } finally {
    await ts.stop({ withNats: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
