/** Minimal argv parsing: positionals, `--name value`, `--name=value`, boolean `--flag`. */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
}

export function parseArgs(argv: string[], booleans: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h') flags.help = true;
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else {
        const name = a.slice(2);
        const next = argv[i + 1];
        if (!booleans.includes(name) && name !== 'help' && next !== undefined && !next.startsWith('--')) {
          flags[name] = next;
          i++;
        } else flags[name] = true;
      }
    } else positionals.push(a);
  }
  return { positionals, flags };
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command failed for a reason the user can act on: printed as one line, exit code 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}
