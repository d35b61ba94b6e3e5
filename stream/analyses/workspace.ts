/**
 * The analysis environment of one offline workspace (`tracehouse analyze`, eval): what the stream
 * role keeps per tenant in ClickHouse, built here from the input itself.
 */
import type { WorkspaceEnv } from './offline.js';

export const workspaceEnv: WorkspaceEnv = () => ({});
