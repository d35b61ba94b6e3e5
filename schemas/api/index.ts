/** Every implemented data-API endpoint, in the order of the OpenAPI document. */
import type { EndpointSpec } from './common.js';
import { clusterConversations, listClusters, searchTaskClusters } from './clusters.js';
import { conversationContext, listConversations } from './conversations.js';
import { listEmotions } from './emotions.js';
import { listHallucinations } from './hallucinations.js';
import { submitFeedback } from './feedback.js';
import { openapiDocument, overview, whoami } from './overview.js';
import { searchMessages } from './search.js';
import { toolFailureDetail, toolFailureOverview } from './tool-failures.js';
import { conversationStepScores } from './step-scores.js';
import { conversationWorldState, worldStateReplay, worldStateSnapshot } from './world-state.js';
import {
  listProblemsEndpoint,
  problemConversationsEndpoint,
  problemDetailEndpoint,
  problemEvidenceEndpoint,
  problemFeedbackListEndpoint,
  problemReportsEndpoint,
  submitProblemFeedbackEndpoint,
} from './problems.js';

export const ENDPOINTS: readonly EndpointSpec[] = [
  listConversations,
  conversationContext,
  overview,
  toolFailureOverview,
  toolFailureDetail,
  listEmotions,
  listHallucinations,
  searchMessages,
  submitFeedback,
  listClusters,
  clusterConversations,
  searchTaskClusters,
  whoami,
  openapiDocument,
  conversationStepScores,
  conversationWorldState,
  worldStateReplay,
  worldStateSnapshot,
  listProblemsEndpoint,
  problemDetailEndpoint,
  problemReportsEndpoint,
  problemConversationsEndpoint,
  problemEvidenceEndpoint,
  submitProblemFeedbackEndpoint,
  problemFeedbackListEndpoint,
];

export * from './common.js';
export * from './clusters.js';
export * from './conversations.js';
export * from './emotions.js';
export * from './hallucinations.js';
export * from './feedback.js';
export * from './overview.js';
export * from './search.js';
export * from './tool-failures.js';
export * from './step-scores.js';
export * from './world-state.js';
export * from './problems.js';
export type { Infer } from './infer.js';
