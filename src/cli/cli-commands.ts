import type { INestApplicationContext } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Mode } from '../shared/auth/request-context';
import type { OrgId } from '../shared/ids/ids';
import { CreateApiKeyCommand, CreateOrganizationCommand, ListApiKeysQuery, ListOrganizationsQuery, RevokeApiKeyCommand } from '../modules/organizations';
import { IssueMemberLinkCommand } from '../modules/console';
import { GetProvidersQuery, SetProviderConfirmationsCommand, SetProviderEnabledCommand } from '../modules/providers';
import { ImportRatesCommand, parseSnapshotFile, SnapshotFileError } from '../modules/rates';
import { ValidationFailedError } from '../shared/errors/domain-error';
import { readFileSync } from 'node:fs';

import { CliArgs, CliUsageError } from './cli-args';
import { doctor } from './doctor';

export { type CliArgs, CliUsageError } from './cli-args';

export interface CliCommand {
  usage: string;
  run(args: CliArgs, app: INestApplicationContext): Promise<unknown>;
}

export function requireFlag(args: CliArgs, name: string): string {
  const value = args.flags[name];
  if (typeof value !== 'string' || !value) throw new CliUsageError(`--${name} is required`);
  return value;
}

/** `--mode test|live` narrows a setting to one mode; without it both modes change. */
function modesFlag(args: CliArgs): Mode[] {
  const mode = args.flags.mode;
  if (mode === undefined) return ['test', 'live'];
  if (mode !== 'test' && mode !== 'live') throw new CliUsageError('--mode must be test or live');
  return [mode];
}

function providerToggle(enabled: boolean): CliCommand {
  const name = enabled ? 'provider:enable' : 'provider:disable';
  return {
    usage: `${name} --org ORG_ID --provider PROVIDER_ID [--mode test|live]   (both modes when --mode is left out)`,
    run: (args, app) =>
      app.get(CommandBus).execute(new SetProviderEnabledCommand(requireFlag(args, 'org'), requireFlag(args, 'provider'), enabled, modesFlag(args))),
  };
}

/** Operator commands. Each one goes through the same command and query buses as the HTTP API. */
export const CLI_COMMANDS: Record<string, CliCommand> = {
  'org:create': {
    usage: 'org:create --name NAME [--owner-email EMAIL]   (with an owner: sign_in_url, a one-time link to set the console password, 24 h)',
    run: async (args, app) => {
      const ownerEmail = args.flags['owner-email'];
      if (ownerEmail !== undefined && (typeof ownerEmail !== 'string' || !ownerEmail)) throw new CliUsageError('--owner-email needs an email address');
      const created = await app.get(CommandBus).execute(new CreateOrganizationCommand(requireFlag(args, 'name')));
      if (ownerEmail === undefined) return created;
      const link = await app.get(CommandBus).execute(new IssueMemberLinkCommand(created.organization_id, ownerEmail, 'invite', 'owner'));
      return { ...created, sign_in_url: link.url };
    },
  },
  'member:invite': {
    usage: 'member:invite --org ORG_ID --email EMAIL --role owner|admin|developer|analyst|support   (prints a one-time link to set a password, 24 h)',
    run: (args, app) =>
      app.get(CommandBus).execute(new IssueMemberLinkCommand(requireFlag(args, 'org'), requireFlag(args, 'email'), 'invite', requireFlag(args, 'role'))),
  },
  'member:reset': {
    usage: 'member:reset --email EMAIL --org ORG_ID   (prints a one-time password reset link, 2 h)',
    run: (args, app) => app.get(CommandBus).execute(new IssueMemberLinkCommand(requireFlag(args, 'org'), requireFlag(args, 'email'), 'reset')),
  },
  'org:list': {
    usage: 'org:list   (every organization: id, name, created_at and its active keys per mode; no key is shown)',
    run: (_args, app) => app.get(QueryBus).execute(new ListOrganizationsQuery()),
  },
  'key:create': {
    usage: 'key:create --org ORG_ID --mode test|live [--read-only]',
    run: (args, app) => {
      const mode = requireFlag(args, 'mode');
      if (mode !== 'test' && mode !== 'live') throw new CliUsageError('--mode must be test or live');
      return app.get(CommandBus).execute(new CreateApiKeyCommand(requireFlag(args, 'org'), mode, args.flags['read-only'] === true));
    },
  },
  'key:revoke': {
    usage: 'key:revoke --key FULL_KEY | --key PREFIX --org ORG_ID   (a 14-character display prefix needs its organization)',
    run: (args, app) => {
      const key = requireFlag(args, 'key');
      const org = args.flags.org;
      if (org !== undefined && (typeof org !== 'string' || !org)) throw new CliUsageError('--org needs an organization id');
      return app.get(CommandBus).execute(new RevokeApiKeyCommand(key, org as string | undefined));
    },
  },
  'rates:import': {
    usage: 'rates:import FILE   (JSON: {"taken_at": "YYYY-MM-DD HH:MM:SS", "source"?: "...", "rates": {"BITCOIN": "91250.42", ...}})',
    run: (args, app) => {
      const file = args.positional[0];
      if (!file) throw new CliUsageError('rates:import needs a FILE');
      let snapshot;
      try {
        snapshot = parseSnapshotFile(JSON.parse(readFileSync(file, 'utf8')));
      } catch (e) {
        if (e instanceof SnapshotFileError) throw new ValidationFailedError(e.fields);
        throw new CliUsageError(`cannot read ${file}: ${(e as Error).message}`);
      }
      return app.get(CommandBus).execute(new ImportRatesCommand(snapshot));
    },
  },
  'provider:disable': providerToggle(false),
  'provider:enable': providerToggle(true),
  'provider:confirmations': {
    usage:
      'provider:confirmations --org ORG_ID --provider PROVIDER_ID --count N|default [--mode test|live]   (confirmations a crypto payment needs; "default" restores the catalog value)',
    run: (args, app) => {
      const raw = requireFlag(args, 'count');
      if (raw !== 'default' && !/^\d{1,6}$/.test(raw)) throw new CliUsageError('--count must be a whole number or "default"');
      const count = raw === 'default' ? null : Number.parseInt(raw, 10);
      return app.get(CommandBus).execute(new SetProviderConfirmationsCommand(requireFlag(args, 'org'), requireFlag(args, 'provider'), count, modesFlag(args)));
    },
  },
  'provider:list': {
    usage: 'provider:list --org ORG_ID --mode test|live',
    run: async (args, app) => {
      const mode = requireFlag(args, 'mode');
      if (mode !== 'test' && mode !== 'live') throw new CliUsageError('--mode must be test or live');
      const providers = await app.get(QueryBus).execute(new GetProvidersQuery({ organizationId: requireFlag(args, 'org') as OrgId, mode }));
      return providers.map((p) => ({
        id: p.view.id,
        name: p.view.name,
        type: p.view.type,
        currency: p.view.currency,
        enabled: p.view.enabled,
        required_confirmations: p.view.required_confirmations,
      }));
    },
  },
  doctor: {
    usage:
      "doctor [--json]   (go-live preflight: settings, file storage, rate sources, each CHAINS_FILE node (answers, chain, sync, txindex), confirmations, each wallet's first address; exit code 1 when a check fails)",
    run: doctor,
  },
  'key:list': {
    usage: 'key:list --org ORG_ID',
    run: (args, app) => app.get(QueryBus).execute(new ListApiKeysQuery(requireFlag(args, 'org'))),
  },
};
