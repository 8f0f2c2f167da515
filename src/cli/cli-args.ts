/** The CLI's parsed arguments and its usage error, apart from the commands so a light command loads nothing else. */
export type CliArgs = { positional: string[]; flags: Record<string, string | true> };

export class CliUsageError extends Error {}

/** What a command prints as it is (not as JSON), and the exit code it ends with. */
export class CliOutput {
  constructor(
    readonly text: string,
    readonly code: number,
  ) {}
}

/** A switch: `--name` alone or `--name=true` / `--name true` is on, absent or `false` off; any other value is a usage error, never read as off. */
export function switchFlag(args: CliArgs, name: string): boolean {
  const value = args.flags[name];
  if (value === undefined || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new CliUsageError(`--${name} is a switch: give it alone (or =true / =false), not "${value}"`);
}
