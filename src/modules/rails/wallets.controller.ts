import { Audited } from '../../shared/audit/audit-trail';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { DeleteWalletCommand } from './commands/delete-wallet/delete-wallet.command';
import { RegisterWalletCommand } from './commands/register-wallet/register-wallet.command';
import {
  DeletedWalletDto,
  HARDHAT_XPUB,
  LITECOIN_ZPUB,
  ListWalletsQueryDto,
  RegisterWalletRequestDto,
  SOLANA_WALLET,
  WALLET_EXAMPLE,
  WalletDto,
  WalletListDto,
} from './dto/rails.dto';
import { GetWalletQuery } from './queries/get-wallet/get-wallet.query';
import { ListWalletsQuery } from './queries/list-wallets/list-wallets.query';

const ID_PARAM = ApiParam({ name: 'id', example: WALLET_EXAMPLE.id });

/** Receiving wallets: watch-only keys deposit addresses are derived from (docs/rails.md). */
@ApiTags('Wallets')
@Controller('wallets')
export class WalletsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @Authenticated({ write: true })
  @Audited('wallet.register')
  @ApiOperation({
    summary: 'Register a receiving wallet (watch-only)',
    description:
      "The account-level extended public key of the merchant's wallet (m/44'/60'/0'). It becomes the active wallet of the organization, " +
      "mode and chain family: new deposit addresses come from it (m/44'/60'/0'/0/i); addresses already handed out from a previous wallet stay " +
      "watched until their invoice's monitoring window closes. Format and checksum are checked; a private key (xprv, hex) or a recovery phrase " +
      'is refused with 400 validator.xpub and is never stored or logged. No private key ever enters the service. ' +
      'A key belongs to the organization that registered it first: another organization registering it (either mode, or the same key ' +
      'exported with another parent fingerprint or child number: a key is recognised by its public key and chain code) gets 400 ' +
      'invalid_xpub on xpub, naming no organization. Within the organization the key has one address counter (both modes, every ' +
      're-registration), so no address serves two invoices; a key used before continues after its highest index. Check first_address ' +
      'against your wallet. Solana wallets have no extended key: send the wallet address as `address` (an ed25519 key on the curve, ' +
      'base58); it receives every payment, told apart by a reference per payment address (addresses_issued counts them).',
  })
  @ApiBody({
    type: RegisterWalletRequestDto,
    examples: {
      evm: { value: { chain_family: 'evm', xpub: HARDHAT_XPUB } },
      litecoin: { value: { chain_family: 'utxo', network: 'litecoin', xpub: LITECOIN_ZPUB } },
      solana: { value: { chain_family: 'solana', address: SOLANA_WALLET } },
    },
  })
  @ApiEnvelope({ status: 201, type: WalletDto, example: WALLET_EXAMPLE, message: 'Wallet registered' })
  @ApiErrors(400, 401, 403)
  async register(@RequiredCaller() caller: CallerContext, @Body() body: RegisterWalletRequestDto) {
    return reply(
      await this.commands.execute(new RegisterWalletCommand(scopeOf(caller), body.chain_family, body.xpub ?? null, body.network ?? null, body.address ?? null)),
      'Wallet registered',
    );
  }

  @Get()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'List receiving wallets',
    description: "Active and replaced wallets of the key's organization and mode, newest first; keys are never returned.",
  })
  @ApiEnvelope({ type: WalletListDto, example: { items: [WALLET_EXAMPLE], total: 1, limit: 20, offset: 0, has_more: false }, message: 'Wallets listed' })
  @ApiErrors(400, 401)
  async list(@RequiredCaller() caller: CallerContext, @Query() query: ListWalletsQueryDto) {
    return reply(await this.queries.execute(new ListWalletsQuery(scopeOf(caller), query.limit ?? 20, query.offset ?? 0)), 'Wallets listed');
  }

  @Get(':id')
  @HttpCode(200)
  @Authenticated()
  @ID_PARAM
  @ApiOperation({ summary: 'Read a receiving wallet' })
  @ApiEnvelope({ type: WalletDto, example: WALLET_EXAMPLE, message: 'Wallet found' })
  @ApiErrors(401, 404)
  async get(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.queries.execute(new GetWalletQuery(scopeOf(caller), id)), 'Wallet found');
  }

  @Delete(':id')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited('wallet.delete')
  @ID_PARAM
  @ApiOperation({
    summary: 'Delete a receiving wallet',
    description:
      'No new address comes from it (payment_address answers no_receiving_wallet until another is registered). ' +
      "Addresses already handed out stay watched until their invoice's monitoring window closes.",
  })
  @ApiEnvelope({ type: DeletedWalletDto, example: { id: WALLET_EXAMPLE.id, deleted: true }, message: 'Wallet deleted' })
  @ApiErrors(401, 403, 404)
  async remove(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.commands.execute(new DeleteWalletCommand(scopeOf(caller), id)), 'Wallet deleted');
  }
}
