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
