import type { Command } from '../command.js';
import { startCommand, roleCommands } from './start.js';
import { migrateCommand } from './migrate.js';
import { configCommand } from './config.js';
import { keysCommand } from './keys.js';
import { dlqCommand } from './dlq.js';
import { importCommand } from './import.js';
import { statusCommand } from './status.js';
import { analyzeCommand } from './analyze.js';
import { retryAnalysesCommand } from './retry-analyses.js';
import { mcpCommand } from './mcp.js';
import { replayWorkerCommand } from './replay-worker.js';
import { fixVerifyCommand } from './fix-verify.js';

/** Every CLI command, in help order. */
export const commands: Command[] = [startCommand, ...roleCommands, migrateCommand, configCommand, keysCommand, statusCommand, retryAnalysesCommand, dlqCommand, importCommand, analyzeCommand, replayWorkerCommand, mcpCommand, fixVerifyCommand];
