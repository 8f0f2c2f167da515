import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { AllocatePaymentAddressCommand } from './commands/allocate-payment-address/allocate-payment-address.command';
import { PAYMENT_ADDRESS_EXAMPLE, PaymentAddressDto, PaymentAddressRequestDto } from './dto/rails.dto';

/** The deposit address of an invoice on a chain rail (the checkout page and merchants' own pages call it). */
@ApiTags('Invoices')
@Controller('invoices')
export class PaymentAddressController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  @Post(':id/payment_address')
  @HttpCode(200)
  @Authenticated({ payer: true })
  @ApiOperation({
    summary: 'Get the deposit address of an invoice for a provider',
    description:
      "The address (from the organization's active receiving wallet: the next unused index of its key, counted across every organization and " +
      'mode that registered the key, never given to another invoice) where the payer sends ' +
      '`amount` through `provider_id`, with a `uri` for wallet apps (EIP-681 on EVM chains, BIP21 on UTXO chains). The same invoice and provider always get the same address. `amount` is ' +
      "what is still due at the invoice's locked rates (payments completed or waiting for confirmations deducted), rounded up to the provider's " +
      'decimals, as GET /providers/{invoice_id} computes the price. Without an Authorization header (payer access) the invoice id is the capability. ' +
      '400 codes: no_receiving_wallet, rail_not_configured (CHAINS_FILE has no such network or token for the mode), ' +
      "rail_unavailable (the network's node answers another chain than CHAINS_FILE names), provider_disabled, " +
      'unsupported_provider (not paid on a chain this service has a rail for), unknown_provider, invoice_final (COMPLETED or VOIDED). ' +
      "Once the invoice's rate lock has lapsed (expires_at), `amount` is at today's rate: in live mode with live rate sources (RATE_SOURCES), " +
      'a rate of the currency older than RATES_MAX_AGE_SECONDS answers 503 `rates_unavailable` (Retry-After: the seconds until the sources are asked again). ' +
      'Within the lock, a currency whose locked rate was already older than that when the invoice was priced (a way to pay enabled afterwards) ' +
      "answers 503 `rates_unavailable` too, with Retry-After at the lock's end: its payments would be valued at that rate, so it is priced at today's rate only once the lock ends.",
  })
  @ApiParam({ name: 'id', description: 'Invoice id (invoice_...)', example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' })
  @ApiBody({
    type: PaymentAddressRequestDto,
    examples: {
      usdt: { value: { provider_id: 'prov_ethereum_usdt' } },
      ether: { value: { provider_id: 'prov_ethereum_ethereum' } },
      litecoin: { value: { provider_id: 'prov_litecoin_litecoin' } },
    },
  })
  @ApiEnvelope({ type: PaymentAddressDto, example: PAYMENT_ADDRESS_EXAMPLE, message: 'Payment address' })
  @ApiErrors(400, 401, 403, 404, 503)
  async allocate(@Caller() caller: CallerContext | null, @Param('id') id: string, @Body() body: PaymentAddressRequestDto) {
    return reply(await this.commands.execute(new AllocatePaymentAddressCommand(caller ? scopeOf(caller) : null, id, body.provider_id)), 'Payment address');
  }
}
