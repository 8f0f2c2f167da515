import { Injectable } from '@nestjs/common';
import type { ChainFamily, RailKeys } from './domain/payment-rail';
import { EvmKeys } from './evm/evm-keys';

/** The adapters of each chain family; a new family is a new folder and one line here. */
@Injectable()
export class RailRegistry {
  private readonly keys: Record<ChainFamily, RailKeys> = { evm: new EvmKeys() };

  keysOf(family: ChainFamily): RailKeys {
    return this.keys[family];
  }
}
