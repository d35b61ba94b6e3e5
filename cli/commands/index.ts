import type { Command } from '../command.js';
import { startCommand, roleCommands } from './start.js';
import { migrateCommand } from './migrate.js';
import { configCommand } from './config.js';
import { keysCommand } from './keys.js';

/** Every CLI command, in help order. */
export const commands: Command[] = [startCommand, ...roleCommands, migrateCommand, configCommand, keysCommand];
