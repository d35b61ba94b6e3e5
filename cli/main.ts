import { parseArgs, UsageError } from './args.js';
import { commands } from './commands/index.js';
import { ConfigError, DependencyError } from '../core/errors.js';

const HELP = () => `tracehouse — analytics backend for recorded AI-agent runs

Usage: tracehouse <command> [options]      (also: npx tracehouse …, npm run cli -- …)

Commands:
${commands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Run \`tracehouse <command> --help\` for the options of one command.
Configuration comes from the environment; \`tracehouse config\` prints it.
`;

export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP());
    process.exitCode = name ? 0 : 1;
    return;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`tracehouse: unknown command "${name}"\n\n${HELP()}`);
    process.exitCode = 2;
    return;
  }
  const args = parseArgs(rest, command.booleans);
  if (args.flags.help) {
    process.stdout.write(command.usage.trim() + '\n');
    return;
  }
  try {
    const code = await command.run(args);
    if (typeof code === 'number') process.exitCode = code;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`tracehouse ${name}: ${err.message}\n\n${command.usage.trim()}\n`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError || err instanceof DependencyError) {
      process.stderr.write(`tracehouse: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`tracehouse ${name}: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = 1;
    }
  }
}
