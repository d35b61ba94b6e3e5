import { CommandError, parseArgs, UsageError } from './args.js';
import { commands } from './commands/index.js';
import { AppError, ConfigError, DependencyError } from '../core/errors.js';

const HELP = () => `tracehouse — analytics backend for recorded AI-agent runs

Usage: tracehouse <command> [options]      (also: npx tracehouse …, npm run cli -- …)

Commands:
${commands.map((c) => `  ${c.name.padEnd(Math.max(...commands.map((x) => x.name.length)))} ${c.summary}`).join('\n')}

Run \`tracehouse <command> --help\` for the options of one command. Errors are one line;
\`--debug\` on any command prints the stack and causes instead.
Configuration comes from the environment; \`tracehouse config\` prints it.
`;

/** The message of an error as one line: its first line, at most 500 characters. */
export function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const first = text.split('\n').map((l) => l.trim()).find(Boolean) ?? (err as Error)?.name ?? 'error';
  return first.length > 500 ? `${first.slice(0, 499)}…` : first;
}

/** The whole story for `--debug`: every message line, the stack, and the causes. */
function debugText(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 5; e = (e as { cause?: unknown })?.cause, depth++) {
    parts.push(depth ? `caused by: ${(e as Error)?.stack ?? String(e)}` : ((e as Error)?.stack ?? String(e)));
  }
  return parts.join('\n');
}

export async function main(argvIn: string[]): Promise<void> {
  // `--debug` anywhere: failures print their stack and causes instead of one line
  const debug = argvIn.includes('--debug');
  const argv = argvIn.filter((a) => a !== '--debug');
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
    } else if (debug) {
      process.stderr.write(`tracehouse ${name}: ${debugText(err)}\n`);
      process.exitCode = 1;
    } else if (err instanceof ConfigError || err instanceof DependencyError) {
      // written for the user: the whole first line says what to do
      process.stderr.write(`tracehouse: ${oneLine(err)}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`tracehouse ${name}: ${oneLine(err)}${err instanceof AppError || err instanceof CommandError ? '' : ' (--debug shows the stack)'}\n`);
      process.exitCode = 1;
    }
  }
}
