import { createRng, deriveSeed, uuidFrom, zipfWeights, type Rng } from './rng.js';
import { ERROR_TEXTS, TOOL_NAMES, TOOL_WEIGHTS, toolInput, words } from './text.js';

/** Wire formats the ingest edge accepts; each conversation is sent in exactly one of them. */
export const FORMATS = ['otlp-proto-a', 'otlp-json-a', 'otlp-proto-b', 'otlp-json-b', 'hooks-a', 'direct'] as const;
export type Format = (typeof FORMATS)[number];

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  success: boolean;
  error?: string;
  durationMs: number;
  decision: 'accept' | 'reject';
}

export interface Message {
  role: 'user' | 'assistant';
  text: string;
  /** Assistant turns only: a thinking block before the text. */
  thinking?: string;
  toolCalls: ToolCall[];
  timeMs: number;
  model?: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface Conversation {
  index: number;
  id: string;
  tenant: string;
  userId: string;
  environment: 'development' | 'staging' | 'production';
  format: Format;
  startMs: number;
  messages: Message[];
}

export interface ConversationOptions {
  seed: number;
  tenants: number;
  /** Zipf exponent of conversations per tenant (0 = uniform; 1.1 ≈ a few big tenants). */
  tenantSkew: number;
  /** Fraction of tool calls that fail. */
  toolErrorRate: number;
  /** Relative weight of each format. */
  formatWeights: Record<Format, number>;
  /** Epoch ms of the first conversation; fixed so that output does not depend on the clock. */
  startMs: number;
  /** Mean gap between conversation starts. */
  spacingMs: number;
  /** Longest conversation in messages. */
  maxMessages: number;
}

export const DEFAULT_CONVERSATION_OPTIONS: ConversationOptions = {
  seed: 1,
  tenants: 20,
  tenantSkew: 1.1,
  toolErrorRate: 0.08,
  formatWeights: { 'otlp-proto-a': 3, 'otlp-json-a': 1, 'otlp-proto-b': 1, 'otlp-json-b': 1, 'hooks-a': 2, direct: 2 },
  startMs: Date.UTC(2026, 0, 5, 9, 0, 0),
  spacingMs: 2000,
  maxMessages: 800,
};

export const MODELS_A = ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'];
export const MODELS_B = ['gpt-5-codex', 'gpt-5', 'o4-mini'];

/** Tenant ids are stable names: `t00`, `t01`, ... */
export const tenantName = (i: number) => `t${String(i).padStart(2, '0')}`;

/**
 * Message count: most conversations are short (median ≈ 6), one in ten comes from a Pareto tail
 * that reaches several hundred messages. Always even-or-odd ≥ 2 (a prompt and an answer).
 */
export function drawLength(rng: Rng, maxMessages: number): number {
  const n = rng.chance(0.1) ? rng.pareto(30, 1.1) : rng.logNormal(6, 0.6);
  return Math.max(2, Math.min(maxMessages, Math.round(n)));
}

/** The i-th conversation of a workload; a pure function of (options, i). */
export function conversationAt(opts: ConversationOptions, index: number, tenantWeights = zipfWeights(opts.tenants, opts.tenantSkew)): Conversation {
  const rng = createRng(deriveSeed(opts.seed, index));
  const tenantIdx = rng.weighted(tenantWeights);
  const formats = Object.keys(opts.formatWeights) as Format[];
  const format = formats[rng.weighted(formats.map((f) => opts.formatWeights[f]))]!;
  const agentB = format.endsWith('-b');
  const models = agentB ? MODELS_B : MODELS_A;
  const startMs = opts.startMs + index * opts.spacingMs + rng.int(0, opts.spacingMs);
  const count = drawLength(rng, opts.maxMessages);
  const messages: Message[] = [];
  let t = startMs;
  const model = rng.pick(models);
  for (let m = 0; m < count; m++) {
    const user = m % 2 === 0;
    t += user ? rng.int(2000, 60_000) : rng.int(1000, 20_000);
    if (user) {
      messages.push({ role: 'user', text: words(rng, Math.round(rng.logNormal(120, 0.9))), toolCalls: [], timeMs: t, inputTokens: 0, outputTokens: 0, costUsd: 0 });
      continue;
    }
    const calls: ToolCall[] = [];
    const nCalls = rng.weighted([45, 30, 15, 10]);
    for (let c = 0; c < nCalls; c++) {
      const name = TOOL_NAMES[rng.weighted(TOOL_WEIGHTS)]!;
      const success = !rng.chance(opts.toolErrorRate);
      calls.push({
        id: `toolu_${rng.hex(12)}`,
        name,
        input: toolInput(rng, name),
        success,
        error: success ? undefined : rng.pick(ERROR_TEXTS),
        durationMs: Math.round(rng.logNormal(400, 1.2)),
        decision: success || rng.chance(0.7) ? 'accept' : 'reject',
      });
    }
    const inputTokens = rng.int(500, 60_000);
    const outputTokens = rng.int(20, 4000);
    messages.push({
      role: 'assistant',
      text: words(rng, Math.round(rng.logNormal(400, 1))),
      thinking: rng.chance(0.3) ? words(rng, 200) : undefined,
      toolCalls: calls,
      timeMs: t,
      model,
      inputTokens,
      outputTokens,
      costUsd: Math.round((inputTokens * 3 + outputTokens * 15) / 10) / 100_000,
    });
  }
  return {
    index,
    id: agentB ? uuidFrom(rng) : `sess-${uuidFrom(rng)}`,
    tenant: tenantName(tenantIdx),
    userId: `user-${tenantIdx}-${rng.int(0, 40)}`,
    environment: (['production', 'production', 'production', 'staging', 'development'] as const)[rng.int(0, 4)]!,
    format,
    startMs,
    messages,
  };
}

/** Lazily yields conversations 0..count-1. */
export function* conversations(opts: ConversationOptions, count: number, from = 0): Generator<Conversation> {
  const weights = zipfWeights(opts.tenants, opts.tenantSkew);
  for (let i = from; i < from + count; i++) yield conversationAt(opts, i, weights);
}
