/** The CLI's parsed arguments and its usage error, apart from the commands so a light command loads nothing else. */
export type CliArgs = { positional: string[]; flags: Record<string, string | true> };

export class CliUsageError extends Error {}
