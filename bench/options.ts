/** Flags of `npm run bench`. */
export interface BenchOptions {
  quick: boolean;
  /** Query dataset size in events (bulk-loaded). */
  events: number;
  /** At most this many dataset events are generated; the rest are in-engine copies of them. */
  generateEvents: number;
  seed: number;
  /** Concurrency of the ingest-edge clients. */
  concurrency: number;
  /** Seconds per ingest-edge measurement (each format, each client). */
  edgeSeconds: number;
  /** Seconds per offered-rate step of the end-to-end search. */
  stepSeconds: number;
  /** Seconds of the freshness measurement (a marker every 300 ms). */
  freshnessSeconds: number;
  /** Offered events/s of the freshness phase; absent: half the highest sustained end-to-end rate. */
  freshnessRate?: number;
  /** Requests per data API endpoint. */
  queryRequests: number;
  /** Events in the insert and bus ceilings. */
  ceilingEvents: number;
  /** Rounds of the real messages in the stream role's backlog (phase `drain`). */
  drainRounds: number;
  outDir: string;
  skip: Set<string>;
  compare?: [string, string];
  /** Label stored in the result (e.g. a branch name). */
  label: string;
}

export const PHASES = ['drain', 'ceilings', 'edge', 'autocannon', 'e2e', 'freshness', 'query', 'edge-alone', 'memory'] as const;

export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `Usage: npm run bench -- [--quick] [--events N] [--seed N] [--concurrency N] [--skip a,b]
                     [--freshness-rate N] [--out DIR] [--label TEXT]
       npm run bench -- --compare A.json B.json

  --quick          short run (about 5 minutes): 50k generated dataset events, 1.5 s measurements
  --events N       query dataset size in events (default 1000000; 10M works: bulk-loaded)
  --generate N     generate at most N dataset events (default 1000000) and copy them in the
                   engine up to --events (new conversation ids, interleaved times)
  --drain-rounds N the stream role's backlog: N rounds of the real messages (default 6 with
                   --quick, 12 without; 2 and 5 before 29 Nov 2026, night)
  --freshness-rate N  offered events/s of the freshness phase (default: half the highest
                   sustained end-to-end rate, or 2,000 without one)
  --skip LIST      phases to skip: ${PHASES.join(',')}
  --compare A B    print two result files side by side with ratios B/A
`;

/** Parses argv (after the script name). Throws UsageError on anything unknown. */
export function parseArgs(argv: string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const o: BenchOptions = {
    quick,
    events: quick ? 50_000 : 1_000_000,
    generateEvents: 1_000_000,
    seed: 1,
    concurrency: 16,
    edgeSeconds: quick ? 1.5 : 5,
    stepSeconds: quick ? 3 : 8,
    // 50 markers in either mode: a p99 of 17 (5 s, until 30 Nov 2026) was their maximum
    freshnessSeconds: 15,
    queryRequests: quick ? 15 : 200,
    ceilingEvents: quick ? 20_000 : 300_000,
    drainRounds: quick ? 6 : 12,
    outDir: 'bench/results',
    skip: new Set(),
    label: '',
  };
  const num = (flag: string, v: string | undefined) => {
    const n = Number(v?.replace(/_/g, ''));
    if (!v || !Number.isFinite(n) || n < 0) throw new UsageError(`${flag} needs a non-negative number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    switch (a) {
      case '--quick':
        break;
      case '--events': o.events = Math.floor(num(a, argv[++i])); break;
      case '--generate': o.generateEvents = Math.max(1, Math.floor(num(a, argv[++i]))); break;
      case '--seed': o.seed = Math.floor(num(a, argv[++i])); break;
      case '--drain-rounds': o.drainRounds = Math.max(1, Math.floor(num(a, argv[++i]))); break;
      case '--concurrency': o.concurrency = Math.max(1, Math.floor(num(a, argv[++i]))); break;
      case '--freshness-rate': o.freshnessRate = Math.max(1, Math.floor(num(a, argv[++i]))); break;
      case '--out': o.outDir = argv[++i] ?? o.outDir; break;
      case '--label': o.label = argv[++i] ?? ''; break;
      case '--skip':
        for (const p of (argv[++i] ?? '').split(',').filter(Boolean)) {
          if (!(PHASES as readonly string[]).includes(p)) throw new UsageError(`unknown phase "${p}"; phases: ${PHASES.join(', ')}`);
          o.skip.add(p);
        }
        break;
      case '--compare': {
        const a1 = argv[++i];
        const a2 = argv[++i];
        if (!a1 || !a2) throw new UsageError('--compare needs two result files');
        o.compare = [a1, a2];
        break;
      }
      case '--help': case '-h': throw new UsageError(USAGE);
      default: throw new UsageError(`unknown option ${a}\n${USAGE}`);
    }
  }
  return o;
}
