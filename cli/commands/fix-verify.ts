import { loadClientConfig } from '../../core/config.js';
import { readFileSync } from 'node:fs';
import { CommandError, UsageError, flagString } from '../args.js';
import type { Command } from '../command.js';

/** Exit codes of spec/fix-pipeline.md packet `verify.semantics`. */
export const VERIFY_EXIT = { win: 0, failing: 1, degraded: 3 } as const;

export const fixVerifyCommand: Command = {
  name: 'fix-verify',
  summary: 'Gate a candidate for a fix against its baseline (exit 0 win, 1 failing, 3 degraded)',
  usage: `Usage: tracehouse fix-verify <fix-id> [--candidate FILE] [--url URL] [--api-key KEY] [--max-wait-seconds N]

Re-gates a fix on its held-out replay cases (POST /fixes/:id/verify, then advance until the verdict)
and exits 0 when the candidate is a holdout win versus baseline, 1 when it fails, 3 when the
result is degraded (inconclusive, no replay worker, or no verdict within --max-wait-seconds,
default 300). --candidate uploads your own candidate text (gated by hash only).

  --url URL        query service (default $TRACEHOUSE_URL, else http://127.0.0.1:8080)
  --api-key KEY    admin API key (default $TRACEHOUSE_API_KEY)`,
  async run(args) {
    const fixId = args.positionals[0];
    if (!fixId) throw new UsageError('a fix id is required');
    const url = (flagString(args, 'url') ?? loadClientConfig().url).replace(/\/$/, '');
    const key = flagString(args, 'api-key') ?? loadClientConfig().apiKey;
    if (!key) throw new UsageError('an API key is required: --api-key or TRACEHOUSE_API_KEY');
    const maxWait = Number(flagString(args, 'max-wait-seconds') ?? 300);
    const file = flagString(args, 'candidate');
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const json = (await res.json().catch(() => ({}))) as Record<string, any>;
      return { status: res.status, json };
    };
    const who = await call('GET', '/api/v1/data/whoami');
    if (who.status !== 200) throw new CommandError(`API key refused (${who.status})`);
    const base = `/api/tenants/${encodeURIComponent(who.json.tenant)}/fixes/${encodeURIComponent(fixId)}`;
    const v = await call('POST', `${base}/verify`, file ? { candidateContent: readFileSync(file, 'utf8') } : {});
    if (v.status === 503) {
      process.stderr.write(`degraded: ${v.json.message}\n`);
      return VERIFY_EXIT.degraded;
    }
    if (v.status !== 200) throw new CommandError(`verify refused (${v.status}): ${JSON.stringify(v.json.message)}`);
    const until = Date.now() + maxWait * 1000;
    for (;;) {
      const a = await call('POST', `${base}/advance`);
      if (a.status !== 200) throw new CommandError(`advance refused (${a.status}): ${JSON.stringify(a.json.message)}`);
      const f = a.json;
      if (f.status !== 'GATING') {
        process.stdout.write(`${JSON.stringify({ status: f.status, gateResult: f.gateResult })}\n`);
        if (f.status === 'VERIFIED' && f.gateResult?.verdict === 'pass') return VERIFY_EXIT.win;
        if (f.status === 'GATE_FAILED') return VERIFY_EXIT.failing;
        return VERIFY_EXIT.degraded;
      }
      if (Date.now() > until) {
        process.stderr.write(`degraded: no verdict after ${maxWait}s (${f.statusReason})\n`);
        return VERIFY_EXIT.degraded;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  },
};
