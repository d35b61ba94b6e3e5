import type { ParsedArgs } from './args.js';

export interface Command {
  name: string;
  summary: string;
  /** Full help text printed by `tracehouse <name> --help`. */
  usage: string;
  booleans?: readonly string[];
  run(args: ParsedArgs): Promise<number | void>;
}
