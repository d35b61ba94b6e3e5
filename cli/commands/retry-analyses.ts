import { loadConfig } from '../../core/config.js';
import type { RetryFailedRequest, RetryFailedResult } from '../../stream/analyze/retry-failed.js';
import { CommandError, flagString, UsageError } from '../args.js';
import type { Command } from '../command.js';

/** How long the running stream role has to find the conversations and publish their jobs. */
const ASK_TIMEOUT_MS = 60_000;

export const retryAnalysesCommand: Command = {
  name: 'retry-analyses',
  summary: 'Run the analyses that gave up once more, on the running system',
  usage: `Usage: tracehouse retry-analyses [--tenant ID] [--limit N] [--json]

An analyzer that failed STREAM_MAX_DELIVER times in a row for a conversation is recorded as failed
and not retried until its version changes. Once the cause is gone (a fixed release, a repaired
table), this asks the running stream role to analyze every such conversation once more: an
analyzer that now succeeds is recorded ok, one that fails again is failed again at once. Prints the
conversations queued and their failed analyzers by name.

  --tenant ID   only this tenant's conversations (default: every tenant)
  --limit N     at most N conversations (default and ceiling 100000; repeat for more)
  --json        the answer as one JSON object

Needs a running stream role (\`tracehouse start\` or \`tracehouse stream\`) on the configured NATS.`,
  booleans: ['json'],
  async run(args) {
    const { NoRespondersError, RequestError } = await import('@nats-io/transport-node');
    const { openBus } = await import('../../core/runtime.js');
    const { RETRY_FAILED_SUBJECT } = await import('../../stream/analyze/retry-failed.js');
    const req: RetryFailedRequest = {};
    const tenant = flagString(args, 'tenant');
    if (tenant !== undefined) {
      if (tenant === '') throw new UsageError('--tenant needs a tenant id');
      req.tenant = tenant;
    }
    const limit = flagString(args, 'limit');
    if (limit !== undefined) {
      if (!/^[1-9]\d*$/.test(limit)) throw new UsageError('--limit needs a positive integer');
      req.limit = Number(limit);
    }
    const { bus, close } = await openBus(loadConfig());
    let answer: RetryFailedResult & { error?: string };
    try {
      const reply = await bus.nc.request(RETRY_FAILED_SUBJECT, JSON.stringify(req), { timeout: ASK_TIMEOUT_MS });
      answer = reply.json();
    } catch (err) {
      if (err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders())) throw new CommandError('no stream role is running: start the system first (tracehouse start)');
      throw new CommandError(`the running system did not answer within ${ASK_TIMEOUT_MS / 1000} s`);
    } finally {
      await close();
    }
    if (answer.error) throw new CommandError(`the running system could not queue them: ${answer.error}`);
    if (args.flags.json) {
      process.stdout.write(JSON.stringify(answer) + '\n');
      return;
    }
    const by = Object.entries(answer.analyzers).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    process.stdout.write(`${answer.conversations} conversation${answer.conversations === 1 ? '' : 's'} queued for analysis${by.length ? `; failed analyzers: ${by.map(([a, n]) => `${a} ${n}`).join(', ')}` : ''}\n`);
  },
};
