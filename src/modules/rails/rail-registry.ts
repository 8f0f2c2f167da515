import { Injectable } from '@nestjs/common';
import type { NetworkConfig } from './domain/chains-config';
import type { ChainFamily, ChainFollower, RailKeys } from './domain/payment-rail';
import { EvmFollower } from './evm/evm-follower';
import { EvmKeys } from './evm/evm-keys';

/** The adapters of each chain family; a new family is a new folder and one line here. */
@Injectable()
export class RailRegistry {
  private readonly keys: Record<ChainFamily, RailKeys> = { evm: new EvmKeys() };

  keysOf(family: ChainFamily): RailKeys {
    return this.keys[family];
  }

  /** A follower of one network of CHAINS_FILE (all of them EVM networks today). */
  followerOf(network: NetworkConfig): ChainFollower {
    return new EvmFollower(network.rpcUrl);
  }
}
