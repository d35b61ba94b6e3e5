import { CONFIG_VARIABLES, loadConfig, maskedConfig } from '../../core/config.js';
import type { Command } from '../command.js';

export const configCommand: Command = {
  name: 'config',
  summary: 'Print the effective configuration (secrets masked)',
  usage: `Usage: tracehouse config

Prints the configuration this process would run with, as JSON, with secrets masked.
An invalid value fails with a message naming the variable.

Variables:
${CONFIG_VARIABLES.map((v) => `  ${v.name.padEnd(30)} ${v.description} (default ${v.default || 'empty'})`).join('\n')}`,
  async run() {
    process.stdout.write(JSON.stringify(maskedConfig(loadConfig()), null, 2) + '\n');
  },
};
