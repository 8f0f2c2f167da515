import { Controller, Get, Inject, Param, Req, Res, ValidationPipe } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PublicForm } from '../../shared/auth/auth.decorators';
import { DomainError } from '../../shared/errors/domain-error';
import { validationOptions } from '../../shared/http/validation';
import { CHAIN_FAMILIES, ListWalletsQuery, RegisterWalletCommand, RegisterWalletRequestDto, WALLET_NETWORKS, walletKeyField } from '../rails';
import { ConsoleFormPost, ConsoleGate, Form, formText, SignedMember } from './console-gate';
import type { Notice } from './domain/pages';
import { walletsPage, walletStringsOf } from './pages/wallet-pages';

/**
 * The console's wallets page: the mode's receiving wallets (first address, addresses issued, unused
 * gap) and the registration of a watch-only key through the rails module's command, validated as the
 * API validates it (a private key or phrase is refused and never stored), checked against the role
 * table ("wallets" is a catalog row) and recorded in the audit log.
 */
@ApiExcludeController()
@Controller('console')
@PublicForm()
export class ConsoleWalletsController {
  private readonly validation = new ValidationPipe(validationOptions(true));

  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  private async render(g: SignedMember, res: Response, status: number, n: Notice, form = { family: CHAIN_FAMILIES[0], network: '', key: '' }): Promise<void> {
    const list = await this.queries.execute(new ListWalletsQuery(g.scope, 100, 0));
    res.status(status).send(walletsPage(g.ctx, walletStringsOf(g.ctx.lang), list.items, { families: CHAIN_FAMILIES, networks: WALLET_NETWORKS }, n, form));
  }

  @Get(':mode/wallets')
  async wallets(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/wallets', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    await this.render(g, res, 200, null);
  }

  @ConsoleFormPost(':mode/wallets')
  async register(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/wallets', true);
    if (!g || !this.gate.allowed(g, res, 'catalog.write')) return;
    const body = req.body as Form;
    const family = formText(body.chain_family);
    const network = formText(body.network);
    const key = formText(body.xpub).trim();
    try {
      const input = (await this.validation.transform(
        { chain_family: family, [walletKeyField(family)]: key, ...(network ? { network } : {}) },
        { type: 'body', metatype: RegisterWalletRequestDto },
      )) as RegisterWalletRequestDto;
      const wallet = await this.commands.execute(
        new RegisterWalletCommand(g.scope, input.chain_family as never, input.xpub ?? null, input.network ?? null, input.address ?? null),
      );
      await this.gate.audit(g, req, 'wallet.register', wallet.id);
      await this.render(g, res, 201, { kind: 'info', text: `${walletStringsOf(g.ctx.lang).registered} ${wallet.first_address}` });
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      // The key is not repeated on the page after a refusal (it may be a private key pasted by mistake).
      await this.render(g, res, 400, { kind: 'error', text: e.message }, { family, network, key: '' });
    }
  }
}
