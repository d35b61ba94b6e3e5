/**
 * What every part of the fix pipeline shares: its dependencies, loading a fix (by id or short
 * ref), optimistic writes on the entry's KV revision, and step claims.
 *
 * Concurrency: every step that has side effects first claims the fix with a compare-and-set on its
 * KV revision (`claim`); a concurrent caller that loses the claim gets the current row unchanged.
 * A claim left by a crashed process goes stale after `claimStaleMs` and may be taken again.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { KvConflictError } from '../core/kv.js';
import type { CodeHost } from './code-host.js';
import { FixNotFoundError, FixStatusConflictError, InvalidProblemIdError, ProblemNotFoundError } from './errors.js';
import type { EvidenceReader } from './evidence.js';
import type { HarnessStore } from './harness.js';
import type { JsonKv } from './kv-json.js';
import { UUID_PATTERN, type ProblemInfo, type ProblemSource } from './problem-source.js';
import type { PromptRegistry } from './prompts.js';
import type { Proposer } from './proposer.js';
import type { ReplayService } from './replay.js';
import { isShortRef } from './short-ref.js';
import type { FixEntry, FixStore } from './store.js';
import type { StoredFix } from './types.js';
import { asUnavailable } from './unavailable.js';

export interface FixPipelineDeps {
  fixes: FixStore;
  kv: JsonKv;
  problems: ProblemSource;
  prompts: PromptRegistry;
  harness: HarnessStore;
  replay: ReplayService;
  evidence: EvidenceReader;
  proposer: Proposer;
  codeHost?: CodeHost;
  now: () => number;
  magicPrefix: string;
  /** Base URL written into packets (evidence links); empty leaves links out. */
  publicUrl: string;
  gateSeeds?: number;
  claimStaleMs?: number;
}

/** An outcome a step returns: the patch written with the claim's release. */
export type StepWork = (f: StoredFix) => Promise<Partial<StoredFix>>;

export interface PipelineContext {
  deps: FixPipelineDeps;
  /** The injected clock as an ISO timestamp. */
  iso(): string;
  /** The fix by id or short ref (with or without the magic prefix); 404 when absent. */
  load(tenant: string, fixId: string): Promise<FixEntry>;
  /** The problem of a draft or listing; 400 on a malformed id, 404 when absent. */
  getProblem(tenant: string, problemId: string): Promise<ProblemInfo>;
  /** Writes `patch` at the entry's revision; a concurrent change gives the current row (no throw). */
  tryWrite(e: FixEntry, patch: Partial<StoredFix>, trigger: string, actor: string): Promise<{ entry: FixEntry; won: boolean }>;
  /** Like tryWrite, but a lost race is a 409 (mutations that must not silently do nothing). */
  mustWrite(e: FixEntry, patch: Partial<StoredFix>, trigger: string, actor: string): Promise<FixEntry>;
  /** True while a step holds a claim that has not gone stale (default 120 s). */
  isClaimed(f: StoredFix): boolean;
  claim(e: FixEntry, patch: Partial<StoredFix>, actor: string): Promise<{ entry: FixEntry; won: boolean }>;
  /** Drops the claim (best effort), optionally recording why the step stopped. */
  release(e: FixEntry, actor: string, reason?: string): Promise<void>;
  /** Runs `work` under a claim; the claim is dropped with the step's outcome in one write. */
  step(e: FixEntry, claimPatch: Partial<StoredFix>, actor: string, work: StepWork): Promise<FixEntry>;
}

export function createPipelineContext(deps: FixPipelineDeps): PipelineContext {
  const iso = () => new Date(deps.now()).toISOString();
  const staleMs = deps.claimStaleMs ?? 120_000;

  const requireProblemId = (id: string) => {
    if (!UUID_PATTERN.test(id)) throw new InvalidProblemIdError(id);
  };

  const load = async (tenant: string, fixId: string): Promise<FixEntry> => {
    let id = fixId;
    const ref = fixId.toUpperCase().replace(new RegExp(`^${deps.magicPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), '');
    if (isShortRef(ref)) {
      const r = await deps.fixes.byShortRef(ref);
      if (r && r.tenant === tenant) id = r.fixId;
    }
    const e = await deps.fixes.get(tenant, id);
    if (!e) throw new FixNotFoundError(fixId);
    return e;
  };

  const getProblem = async (tenant: string, problemId: string): Promise<ProblemInfo> => {
    requireProblemId(problemId);
    const p = await deps.problems.get(tenant, problemId);
    if (!p) throw new ProblemNotFoundError(problemId);
    return p;
  };

  const tryWrite = async (e: FixEntry, patch: Partial<StoredFix>, trigger: string, actor: string): Promise<{ entry: FixEntry; won: boolean }> => {
    const next: StoredFix = { ...e.fix, ...patch, updatedAt: iso() };
    try {
      return { entry: await deps.fixes.update(e, next, { trigger, actor }), won: true };
    } catch (err) {
      if (!(err instanceof KvConflictError)) throw err;
      const cur = await deps.fixes.get(e.fix.tenantId, e.fix.id);
      return { entry: cur ?? e, won: false };
    }
  };

  const mustWrite = async (e: FixEntry, patch: Partial<StoredFix>, trigger: string, actor: string): Promise<FixEntry> => {
    const r = await tryWrite(e, patch, trigger, actor);
    if (!r.won) throw new FixStatusConflictError(trigger, `${r.entry.fix.status} (changed concurrently)`, '');
    return r.entry;
  };

  const isClaimed = (f: StoredFix): boolean => !!f.claim && deps.now() - Date.parse(f.claim.at) < staleMs;

  const claim = async (e: FixEntry, patch: Partial<StoredFix>, actor: string): Promise<{ entry: FixEntry; won: boolean }> => {
    if (isClaimed(e.fix)) return { entry: e, won: false };
    return tryWrite(e, { ...patch, claim: { id: randomUUID(), at: iso() } }, 'advance', actor);
  };

  const release = async (e: FixEntry, actor: string, reason?: string) => {
    await tryWrite(e, { claim: null, ...(reason ? { statusReason: reason } : {}) }, 'advance', actor).catch(() => undefined);
  };

  const step = async (e: FixEntry, claimPatch: Partial<StoredFix>, actor: string, work: StepWork): Promise<FixEntry> => {
    const c = await claim(e, claimPatch, actor);
    if (!c.won) return c.entry;
    let outcome: Partial<StoredFix>;
    try {
      outcome = await work(c.entry.fix);
    } catch (err) {
      // a data store that does not answer is a 503 the fix records as the reason it stopped
      const e = asUnavailable(err);
      await release(c.entry, actor, e instanceof AppError && e.expose ? `step failed: ${e.message}` : undefined);
      throw e;
    }
    return (await tryWrite(c.entry, { ...outcome, claim: null }, 'advance', actor)).entry;
  };

  return { deps, iso, load, getProblem, tryWrite, mustWrite, isClaimed, claim, release, step };
}
