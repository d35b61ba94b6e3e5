/**
 * Builds the fix domain once per process from shared clients (query role and `tracehouse mcp`
 * share it): KV stores, replay, proposer, code host and the pipeline.
 */
import type { Config } from '../core/config.js';
import type { Store } from '../core/clickhouse.js';
import type { Bus } from '../core/nats.js';
import { KV_BUCKETS } from '../schemas/subjects.js';
import { createCodeHost } from './code-host.js';
import { createEvidenceReader } from './evidence.js';
import { createHarnessStore, type HarnessStore } from './harness.js';
import { jsonKv } from './kv-json.js';
import { createFixPipeline, type FixPipeline } from './pipeline.js';
import type { ProblemSource } from './problem-source.js';
import { createPromptRegistry, type PromptRegistry } from './prompts.js';
import { createDeterministicProposer, createLlmProposer, type Proposer } from './proposer.js';
import { createReplayService, type ReplayService } from './replay.js';
import { createSkillsService, type SkillsService } from './skills.js';
import { createFixStore } from './store.js';

export interface FixServices {
  pipeline: FixPipeline;
  prompts: PromptRegistry;
  harness: HarnessStore;
  replay: ReplayService;
  skills: SkillsService;
  proposer: Proposer;
  problems: ProblemSource;
  config: Config['fixes'];
}

export async function createFixServices(deps: { config: Config; bus: Bus; store: Store; problems: ProblemSource; now?: () => number }): Promise<FixServices> {
  const now = deps.now ?? Date.now;
  const kv = jsonKv(await deps.bus.kv(KV_BUCKETS.fixes.name));
  const cfg = deps.config.fixes;
  const prompts = createPromptRegistry(kv, now);
  const harness = createHarnessStore(kv, now);
  const replay = createReplayService(deps.bus, kv, now);
  const proposer = cfg.llm.url ? createLlmProposer(cfg.llm) : createDeterministicProposer();
  const codeHost = cfg.github.token && cfg.github.repo ? createCodeHost(cfg.github) : undefined;
  const pipeline = createFixPipeline({
    fixes: createFixStore(kv.kv, deps.store),
    kv,
    problems: deps.problems,
    prompts,
    harness,
    replay,
    evidence: createEvidenceReader(deps.store),
    proposer,
    codeHost,
    now,
    magicPrefix: cfg.magicPrefix,
    publicUrl: cfg.publicUrl,
    gateSeeds: cfg.gateSeeds,
  });
  const skills = createSkillsService(kv, deps.store, now);
  return { pipeline, prompts, harness, replay, skills, proposer, problems: deps.problems, config: cfg };
}
