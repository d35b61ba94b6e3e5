/**
 * Response schemas of the fix routes (spec/fix-pipeline.md "Resources and their fields"): the fix
 * object (camelCase), the gate result, the fix packet (snake_case by design) and the small answers
 * of verify, submit, prompt sync and the merge notification. Published in the OpenAPI document
 * (query/openapi.ts) through FIX_ROUTES; the integration suite validates live answers against them.
 * The TypeScript shapes they describe live in fixes/types.ts, fixes/packet.ts and fixes/prompts.ts.
 */
import { cursorPagination } from './common.js';
import {
  DELIVERY_CHANNELS,
  FIX_STATUSES,
  FIX_TYPES,
  GATE_VERDICTS,
  MERGE_OUTCOMES,
  PACKET_KIND,
  PROMPT_SYNC_ACTIONS,
} from './fix-values.js';

const str = (description: string) => ({ type: 'string', description }) as const;
const nullableStr = (description: string) => ({ type: ['string', 'null'], description }) as const;
const isoTime = (description: string) => ({ type: 'string', description: `${description} ISO 8601 UTC.` }) as const;

export const fixStatusSchema = { type: 'string', enum: FIX_STATUSES, description: 'Pipeline status (spec "States and transitions").' } as const;
export const fixTypeSchema = { type: 'string', enum: FIX_TYPES, description: 'What the fix changes; only `PROMPT` fixes get a proposed candidate.' } as const;

const gateArm = {
  type: 'object',
  required: ['baseline', 'candidate', 'n'],
  additionalProperties: false,
  properties: {
    baseline: { type: 'number', description: 'Pass rate of the baseline on these cases.' },
    candidate: { type: 'number', description: 'Pass rate of the candidate on these cases.' },
    n: { type: 'integer', description: 'Number of cases.' },
  },
} as const;

export const gateResultSchema = {
  type: 'object',
  description: 'Verdict of a finished gate (holdout cases only decide it).',
  required: ['repair', 'holdout', 'noiseFloor', 'abstained', 'verdict', 'reason'],
  additionalProperties: false,
  properties: {
    repair: gateArm,
    holdout: {
      type: 'object',
      required: ['baseline', 'candidate', 'n', 'wins', 'losses'],
      additionalProperties: false,
      properties: {
        ...gateArm.properties,
        wins: { type: 'integer', description: 'Holdout cases the candidate won against the baseline.' },
        losses: { type: 'integer', description: 'Holdout cases the candidate lost.' },
      },
    },
    noiseFloor: { type: 'number', description: 'Disagreements of the control run (baseline against itself).' },
    abstained: { type: 'number', description: 'Holdout cases without a judgement.' },
    verdict: { type: 'string', enum: GATE_VERDICTS, description: '`pass` needs wins − losses ≥ max(2, noiseFloor + 1), losses ≤ noiseFloor and at most 30% abstained; over 30% abstained is `inconclusive`; anything else `fail`.' },
    reason: str('Why the verdict was reached.'),
  },
} as const;

const candidateRef = {
  type: 'object',
  description: 'The candidate change: a registered prompt version, or (an uploaded candidate verified locally) an empty `promptVersionId` plus `contentSha256`.',
  required: ['promptVersionId'],
  additionalProperties: false,
  properties: {
    promptVersionId: str('Registered prompt version of the candidate; empty for an uploaded candidate.'),
    changelog: str('What the candidate changes.'),
    risks: str('What the change could break.'),
    contentSha256: str('SHA-256 (hex) of an uploaded candidate.'),
  },
} as const;

const fixRef = {
  type: 'object',
  description: 'Merge provenance, set when the fix shipped.',
  required: ['prUrl', 'mergeCommit', 'promptVersionId', 'mergedAt'],
  additionalProperties: false,
  properties: {
    prUrl: str('Merged pull request.'),
    mergeCommit: str('Merge commit.'),
    promptVersionId: str('Candidate prompt version that shipped (empty when none).'),
    mergedAt: isoTime('When it merged.'),
  },
} as const;

/** The fix object: every fix route except the packet answers it (or a list of it). */
export const fixObject = {
  type: 'object',
  required: [
    'id', 'shortRef', 'tenantId', 'problemId', 'rubricVersion', 'attemptNo', 'fixType', 'status', 'statusReason',
    'targetArtifactKey', 'targetSourcePath', 'routeConfidence', 'promptId', 'baselineVersionId', 'replaySetId',
    'repairCaseIds', 'holdoutCaseIds', 'candidateRef', 'gateRunId', 'controlRunId', 'gateResult', 'deliveryChannel',
    'prUrl', 'prBranch', 'fixRef', 'problemRank', 'createdAt', 'updatedAt',
  ],
  additionalProperties: false,
  properties: {
    id: str('Fix ID, used in `/fixes/{fixId}`.'),
    shortRef: { type: 'string', pattern: '^[0-9A-Z]{8}$', description: '8-character base36 alias; `SVC-FIX-<shortRef>` is the pull-request magic word.' },
    tenantId: str('Owning workspace.'),
    problemId: str('Source problem (UUID).'),
    rubricVersion: { type: 'integer', description: 'Problem definition version the fix targets.' },
    attemptNo: { type: 'integer', description: 'Attempt counter within that version.' },
    fixType: fixTypeSchema,
    status: fixStatusSchema,
    statusReason: str('Human-readable reason of the status.'),
    targetArtifactKey: nullableStr('Routed harness artifact; null when unrouted.'),
    targetSourcePath: nullableStr('Repository-relative path of the routed artifact; null when unrouted.'),
    routeConfidence: { type: ['number', 'null'], description: 'Routing confidence, 0–1.' },
    promptId: nullableStr('Registry prompt of the target.'),
    baselineVersionId: nullableStr('The prod-labelled version pinned as the gate baseline.'),
    replaySetId: nullableStr('Frozen evaluation set.'),
    repairCaseIds: { type: 'array', items: { type: 'string' }, description: 'Cases a proposer may see.' },
    holdoutCaseIds: { type: 'array', items: { type: 'string' }, description: 'Held-out cases that decide the verdict; never shown to a proposer.' },
    candidateRef: { anyOf: [candidateRef, { type: 'null' }] },
    gateRunId: nullableStr('Gate run (baseline against candidate).'),
    controlRunId: nullableStr('Control run (baseline against baseline).'),
    gateResult: { anyOf: [gateResultSchema, { type: 'null' }] },
    deliveryChannel: { type: ['string', 'null'], enum: [...DELIVERY_CHANNELS, null], description: 'How the fix was delivered.' },
    prUrl: nullableStr('Pull request, once delivered as one.'),
    prBranch: nullableStr('Branch of the delivery (`svc/fix/<shortref>` for a pull request, the local reference otherwise).'),
    fixRef: { anyOf: [fixRef, { type: 'null' }] },
    problemRank: { type: ['number', 'null'], description: 'Rank of the source problem (queue decoration).' },
    createdAt: isoTime('Created.'),
    updatedAt: isoTime('Last change.'),
  },
} as const;

/** `GET /tenants/{tenantId}/problems/{problemId}/fixes`: no pagination. */
export const fixListResponse = {
  type: 'object',
  required: ['fixes'],
  additionalProperties: false,
  properties: { fixes: { type: 'array', items: fixObject, description: 'Newest first.' } },
} as const;

/** `GET /tenants/{tenantId}/fixes`: the ranked queue, cursor-paginated. */
export const fixQueueResponse = {
  type: 'object',
  required: ['fixes', 'pagination'],
  additionalProperties: false,
  properties: {
    fixes: { type: 'array', items: fixObject, description: 'Problem rank descending, then most recently updated.' },
    pagination: cursorPagination,
  },
} as const;

export const verifyFixResponse = {
  type: 'object',
  required: ['gateRunId'],
  additionalProperties: false,
  properties: { gateRunId: str('The fresh gate run; the fix is now `GATING` (advance it to poll).') },
} as const;

export const submitFixResponse = {
  type: 'object',
  required: ['status', 'prUrl', 'prBranch'],
  additionalProperties: false,
  properties: {
    status: fixStatusSchema,
    prUrl: nullableStr('Draft pull request (channel `pr`).'),
    prBranch: nullableStr('Branch of the pull request, or the recorded local reference.'),
  },
} as const;

/** The fix packet (`tracehouse.fix_packet.v1`, snake_case): what a coding agent needs to apply a fix by hand. */
export const fixPacketSchema = {
  type: 'object',
  required: ['kind', 'fix_id', 'short_ref', 'problem_id', 'title', 'cause_statement', 'target', 'evidence', 'verify', 'handback'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', const: PACKET_KIND },
    fix_id: str('Fix ID.'),
    short_ref: str('Short reference of the fix.'),
    problem_id: str('Source problem.'),
    title: str('Problem title, neutralized as untrusted data (`<untrusted-data>…</untrusted-data>`).'),
    cause_statement: str('Cause statement, neutralized as untrusted data.'),
    target: {
      type: 'object',
      description: 'Keys are omitted when unknown; an unrouted fix has only `fix_type`.',
      required: ['fix_type'],
      additionalProperties: false,
      properties: {
        fix_type: fixTypeSchema,
        source_path: str('Repository-relative path to change.'),
        artifact_key: str('Harness artifact.'),
        prompt_id: str('Registry prompt.'),
        baseline_version_id: str('Pinned baseline version.'),
      },
    },
    evidence: {
      type: 'array',
      description: 'Up to 20 evidence messages.',
      items: {
        type: 'object',
        required: ['conversation_id'],
        additionalProperties: false,
        properties: {
          conversation_id: str('Conversation.'),
          msg_index: { type: 'integer', description: 'Message index in the conversation.' },
          url: str('Data-API context URL of the message (when a public URL is configured).'),
        },
      },
    },
    candidate: {
      type: 'object',
      description: 'Present for `PROMPT` fixes with a candidate; keys are omitted when unknown.',
      required: ['diff_available'],
      additionalProperties: false,
      properties: {
        prompt_version_id: str('Registered candidate prompt version; omitted for an uploaded candidate (verified by hash only).'),
        diff_available: { type: 'boolean', description: 'Both a registered candidate and a baseline exist.' },
      },
    },
    verify: {
      type: 'object',
      required: ['command', 'semantics'],
      additionalProperties: false,
      properties: {
        command: str('Command that gates a candidate file.'),
        semantics: str('Exit code 0: holdout win against the baseline; 1: failing; 3: degraded.'),
      },
    },
    handback: {
      type: 'object',
      required: ['pr', 'magic_word', 'constraints'],
      additionalProperties: false,
      properties: {
        pr: {
          type: 'object',
          required: ['branch', 'title', 'body_must_contain'],
          additionalProperties: false,
          properties: { branch: str('Branch to push.'), title: str('Pull-request title.'), body_must_contain: str('Text the pull-request body must carry.') },
        },
        magic_word: str('`SVC-FIX-<SHORTREF>`: merging the draft pull request the service opened (status `PR_OPEN`), which carries it, ships the fix; any other applied change is recorded with `fix_mark_applied`.'),
        constraints: { type: 'array', items: { type: 'string' } },
      },
    },
  },
} as const;

export const promptSyncResponse = {
  type: 'object',
  required: ['dryRun', 'prompts', 'removed'],
  additionalProperties: false,
  properties: {
    dryRun: { type: 'boolean', description: 'True when nothing was written.' },
    prompts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'promptId', 'contentHash', 'versionId', 'action'],
        additionalProperties: false,
        properties: {
          key: str('Prompt key.'),
          promptId: nullableStr('Registry prompt; null for a new prompt in a dry run.'),
          contentHash: str('SHA-256 (hex) of the content.'),
          versionId: nullableStr('Current version; null in a dry run of a change.'),
          action: { type: 'string', enum: PROMPT_SYNC_ACTIONS },
        },
      },
    },
    removed: { type: 'array', items: { type: 'string' }, description: 'Keys absent from the set, marked removed.' },
  },
} as const;

/** Fields of the code host's `pull_request` event the merge notification reads (others are ignored). */
export const mergeNotificationBody = {
  type: 'object',
  description: 'A GitHub `pull_request` webhook event (header `x-github-event: pull_request`); only a `closed` action with `merged: true` has an effect.',
  properties: {
    action: { type: 'string' },
    pull_request: {
      type: 'object',
      properties: {
        merged: { type: 'boolean' },
        body: { type: ['string', 'null'], description: 'Searched for `SVC-FIX-<SHORTREF>`.' },
        head: { type: 'object', properties: { ref: { type: 'string', description: 'Searched for `SVC-FIX-<SHORTREF>` too.' } } },
        html_url: { type: 'string' },
        merge_commit_sha: { type: ['string', 'null'] },
        merged_at: { type: ['string', 'null'] },
      },
    },
  },
} as const;

export const mergeNotificationResponse = {
  type: 'object',
  required: ['accepted', 'fixes'],
  additionalProperties: false,
  properties: {
    accepted: { type: 'boolean', const: true },
    fixes: {
      type: 'array',
      description: 'One entry per fix the pull request names.',
      items: {
        type: 'object',
        required: ['fix_id', 'short_ref', 'status', 'feedback_id', 'duplicate', 'outcome'],
        additionalProperties: false,
        properties: {
          fix_id: str('Fix.'),
          short_ref: str('Its short reference.'),
          status: fixStatusSchema,
          feedback_id: nullableStr('The `mark_fixed` problem feedback posted (null when ignored).'),
          duplicate: { type: 'boolean', description: 'A redelivery that converged on the same feedback.' },
          outcome: { type: 'string', enum: MERGE_OUTCOMES },
        },
      },
    },
    ignored: str('Why the event had no effect (not a merged pull request).'),
  },
} as const;
