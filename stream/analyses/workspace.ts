/**
 * The analysis environment of one offline workspace (`tracehouse analyze`, eval): what the stream
 * role keeps per tenant in ClickHouse, built here from the input itself. Failure categories are
 * primed with every failed call of the input first, so they do not depend on the order of the
 * conversations.
 */
import type { WorkspaceEnv } from './offline.js';
import { createCategoryRegistry, prime } from './tool-failure-categories.js';

export const workspaceEnv: WorkspaceEnv = (snapshots) => {
  const categories = createCategoryRegistry([], { tenantSeed: snapshots[0]?.tenantId ?? 'default' });
  prime(categories, snapshots.flatMap((s) => s.toolCalls));
  return { categories };
};
