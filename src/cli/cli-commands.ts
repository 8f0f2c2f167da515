import type { INestApplicationContext } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Mode } from '../shared/auth/request-context';
import type { OrgId } from '../shared/ids/ids';
import { CreateApiKeyCommand, CreateOrganizationCommand, ListApiKeysQuery, ListOrganizationsQuery, RevokeApiKeyCommand } from '../modules/organizations';
import { IssueMemberLinkCommand, normalizeEmail } from '../modules/console';
import { GetProvidersQuery, SetProviderConfirmationsCommand, SetProviderEnabledCommand } from '../modules/providers';
import { ImportRatesCommand, parseSnapshotFile, SnapshotFileError } from '../modules/rates';
import { ForgetLostKeyWalletKeysCommand } from '../modules/rails';
import { ForgetLostKeyWebhookSecretsCommand } from '../modules/webhooks';
import { KEY_ID_SHAPE, SecretBox, sealedWithPattern } from '../shared/crypto/secret-box';
import { TransactionRunner } from '../shared/db/transaction-runner';
import { ValidationFailedError } from '../shared/errors/domain-error';
import { forgetAnswersSealedWith } from '../shared/idempotency/idempotency';
import { readFileSync } from 'node:fs';

import { CliArgs, CliUsageError, switchFlag } from './cli-args';
import { CLI_USAGE, type CliCommandName } from './cli-usage';
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
    usage: CLI_USAGE[name],
    run: (args, app) =>
      app.get(CommandBus).execute(new SetProviderEnabledCommand(requireFlag(args, 'org'), requireFlag(args, 'provider'), enabled, modesFlag(args))),
  };
}

/** Operator commands. Each one goes through the same command and query buses as the HTTP API. */
export const CLI_COMMANDS: { [name in CliCommandName]: CliCommand } = {
  'org:create': {
    usage: CLI_USAGE['org:create'],
    run: async (args, app) => {
      const ownerEmail = args.flags['owner-email'];
      if (ownerEmail !== undefined && (typeof ownerEmail !== 'string' || !ownerEmail)) throw new CliUsageError('--owner-email needs an email address');
      // The email is checked before anything is created: the keys are shown only once, by this command.
      const email = ownerEmail === undefined ? undefined : normalizeEmail(ownerEmail);
      const created = await app.get(CommandBus).execute(new CreateOrganizationCommand(requireFlag(args, 'name')));
      if (email === undefined) return created;
      const link = await app.get(CommandBus).execute(new IssueMemberLinkCommand(created.organization_id, email, 'invite', 'owner'));
      return { ...created, sign_in_url: link.url };
    },
  },
  'member:invite': {
    usage: CLI_USAGE['member:invite'],
    run: (args, app) =>
      app.get(CommandBus).execute(new IssueMemberLinkCommand(requireFlag(args, 'org'), requireFlag(args, 'email'), 'invite', requireFlag(args, 'role'))),
  },
  'member:reset': {
    usage: CLI_USAGE['member:reset'],
    run: (args, app) => app.get(CommandBus).execute(new IssueMemberLinkCommand(requireFlag(args, 'org'), requireFlag(args, 'email'), 'reset')),
  },
  'org:list': {
    usage: CLI_USAGE['org:list'],
    run: (_args, app) => app.get(QueryBus).execute(new ListOrganizationsQuery()),
  },
  'key:create': {
    usage: CLI_USAGE['key:create'],
    run: (args, app) => {
      const mode = requireFlag(args, 'mode');
      if (mode !== 'test' && mode !== 'live') throw new CliUsageError('--mode must be test or live');
      return app.get(CommandBus).execute(new CreateApiKeyCommand(requireFlag(args, 'org'), mode, switchFlag(args, 'read-only')));
    },
  },
  'key:revoke': {
    usage: CLI_USAGE['key:revoke'],
    run: (args, app) => {
      const key = requireFlag(args, 'key');
      const org = args.flags.org;
      if (org !== undefined && (typeof org !== 'string' || !org)) throw new CliUsageError('--org needs an organization id');
      return app.get(CommandBus).execute(new RevokeApiKeyCommand(key, org as string | undefined));
    },
  },
  'rates:import': {
    usage: CLI_USAGE['rates:import'],
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
    usage: CLI_USAGE['provider:confirmations'],
    run: (args, app) => {
      const raw = requireFlag(args, 'count');
      if (raw !== 'default' && !/^\d{1,6}$/.test(raw)) throw new CliUsageError('--count must be a whole number or "default"');
      const count = raw === 'default' ? null : Number.parseInt(raw, 10);
      return app.get(CommandBus).execute(new SetProviderConfirmationsCommand(requireFlag(args, 'org'), requireFlag(args, 'provider'), count, modesFlag(args)));
    },
  },
  'provider:list': {
    usage: CLI_USAGE['provider:list'],
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
    usage: CLI_USAGE['doctor'],
    run: doctor,
  },
  'key:list': {
    usage: CLI_USAGE['key:list'],
    run: (args, app) => app.get(QueryBus).execute(new ListApiKeysQuery(requireFlag(args, 'org'))),
  },
  'secrets:forget-key': {
    usage: CLI_USAGE['secrets:forget-key'],
    run: forgetLostKey,
  },
};

/**
 * The way back for an operator whose SECRETS_KEY is lost for good: every start opens each stored sealed
 * value to seal it again, so one sealed with a key no longer configured stops the start. This gives up
 * the values that key sealed, through their owners' commands, and says what it did. A key the service
 * is configured with (SECRETS_KEY or SECRETS_KEYS_OLD) is refused: nothing it sealed is lost.
 */
async function forgetLostKey(args: CliArgs, app: INestApplicationContext): Promise<unknown> {
  const keyId = requireFlag(args, 'key-id').toLowerCase();
  if (!KEY_ID_SHAPE.test(keyId)) throw new CliUsageError('--key-id must be the 8 hex characters a start names ("sealed with key 1a2b3c4d, ...")');
  if (app.get(SecretBox).holds(keyId)) {
    throw new CliUsageError(`key ${keyId} is configured (SECRETS_KEY or SECRETS_KEYS_OLD): what it sealed opens, nothing is lost`);
  }
  const webhooks = await app.get(CommandBus).execute(new ForgetLostKeyWebhookSecretsCommand(keyId));
  const wallets = await app.get(CommandBus).execute(new ForgetLostKeyWalletKeysCommand(keyId));
  let answers = 0;
  for (let n = -1; n !== 0;) answers += n = await app.get(TransactionRunner).run((m) => forgetAnswersSealedWith(m, sealedWithPattern(keyId), 500));
  return { key_id: keyId, ...webhooks, ...wallets, idempotent_answers_dropped: answers };
}
