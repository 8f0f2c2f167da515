/**
 * The usage line of each command that works on the database, by name, in the order `--help` lists them.
 * cli-commands.ts implements exactly these (its table is typed by these names). Kept apart and free of
 * imports so that `--help`, an unknown command and the commands that talk to a running service over
 * HTTP start without loading the application.
 */
export const CLI_USAGE = {
  'org:create': 'org:create --name NAME [--owner-email EMAIL]   (with an owner: sign_in_url, a one-time link to set the console password, 24 h)',
  'member:invite': 'member:invite --org ORG_ID --email EMAIL --role owner|admin|developer|analyst|support   (prints a one-time link to set a password, 24 h)',
  'member:reset': 'member:reset --email EMAIL --org ORG_ID   (prints a one-time password reset link, 2 h)',
  'org:list': 'org:list   (every organization: id, name, created_at and its active keys per mode; no key is shown)',
  'key:create': 'key:create --org ORG_ID --mode test|live [--read-only]',
  'key:revoke': 'key:revoke --key FULL_KEY | --key PREFIX --org ORG_ID   (a 14-character display prefix needs its organization)',
  'rates:import': 'rates:import FILE   (JSON: {"taken_at": "YYYY-MM-DD HH:MM:SS", "source"?: "...", "rates": {"BITCOIN": "91250.42", ...}})',
  'provider:disable': 'provider:disable --org ORG_ID --provider PROVIDER_ID [--mode test|live]   (both modes when --mode is left out)',
  'provider:enable': 'provider:enable --org ORG_ID --provider PROVIDER_ID [--mode test|live]   (both modes when --mode is left out)',
  'provider:confirmations':
    'provider:confirmations --org ORG_ID --provider PROVIDER_ID --count N|default [--mode test|live]   (confirmations a crypto payment needs; "default" restores the catalog value)',
  'provider:list': 'provider:list --org ORG_ID --mode test|live',
  doctor:
    "doctor [--json]   (go-live preflight: settings, file storage, rate sources, each CHAINS_FILE node (answers, chain, sync, txindex), confirmations, each wallet's first address; exit code 1 when a check fails)",
  'key:list': 'key:list --org ORG_ID',
  'secrets:forget-key':
    'secrets:forget-key --key-id KEY_ID   (last resort for a SECRETS_KEY lost for good: gives up what it sealed, disabling webhook endpoints and removing wallets that need it; refused for a configured key)',
} as const;

export type CliCommandName = keyof typeof CLI_USAGE;

export function isCliCommand(name: string | undefined): name is CliCommandName {
  return name !== undefined && Object.prototype.hasOwnProperty.call(CLI_USAGE, name);
}
