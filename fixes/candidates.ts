/**
 * The two texts a fix's gate compares: the candidate (proposed or uploaded, KV key
 * `fcand.<tenant>.<fixId>`) and the baseline it patches (the prod-labeled registry version, else
 * the artifact's content in the latest harness graph).
 */
import { FixCandidateInvalidError } from './errors.js';
import type { HarnessArtifact, HarnessStore } from './harness.js';
import type { JsonKv } from './kv-json.js';
import type { PromptRegistry } from './prompts.js';
import type { StoredFix } from './types.js';

/** A gate arm's text and the registry version it came from ('' when not registered). */
export interface ArmText {
  content: string;
  versionId: string;
}

export interface CandidateTexts {
  /** The stored candidate of a fix, if any. */
  get(tenant: string, fixId: string): Promise<{ content: string } | undefined>;
  put(tenant: string, fixId: string, content: string): Promise<void>;
  /** The candidate to gate; 422 when the fix has none. */
  candidateOf(f: StoredFix): Promise<ArmText>;
  /** The baseline text ('' when neither the registry nor the harness graph has it). */
  baselineContent(f: StoredFix): Promise<string>;
}

export function createCandidateTexts(deps: { kv: JsonKv; prompts: PromptRegistry; harness: HarnessStore }): CandidateTexts {
  const candKey = (tenant: string, id: string) => `fcand.${tenant}.${id}`;

  const get = (tenant: string, fixId: string) => deps.kv.get<{ content: string }>(candKey(tenant, fixId));

  const put = async (tenant: string, fixId: string, content: string) => {
    await deps.kv.put(candKey(tenant, fixId), { content });
  };

  const candidateOf = async (f: StoredFix): Promise<ArmText> => {
    const stored = await get(f.tenantId, f.id);
    if (!stored) throw new FixCandidateInvalidError('the fix has no candidate to gate');
    return { content: stored.content, versionId: f.candidateRef?.promptVersionId ?? '' };
  };

  const artifactOf = async (f: StoredFix): Promise<HarnessArtifact | undefined> => {
    const g = await deps.harness.latestGraph(f.tenantId);
    return g?.artifacts.find((a) => a.key === f.targetArtifactKey);
  };

  const baselineContent = async (f: StoredFix): Promise<string> => {
    if (f.baselineVersionId) {
      const c = await deps.prompts.content(f.tenantId, f.baselineVersionId);
      if (c !== undefined) return c;
    }
    return (await artifactOf(f))?.content ?? '';
  };

  return { get, put, candidateOf, baselineContent };
}
