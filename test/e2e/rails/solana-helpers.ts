import { type Address, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { SolanaRpcServer, type SolanaBedOptions } from '../../chain/solana-rpc-server';
import { createMint } from '../../chain/solana-wallet';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import type { Api } from '../../support/api';
import { writeChainsFile } from './rails-helpers';

/** The litesvm-backed node, its USDC and USDT mints, and a CHAINS_FILE whose test section names it. */
export interface SolanaSetup {
  bed: SolanaRpcServer;
  usdc: Address;
  usdt: Address;
  chainsFile: string;
}

export function solanaChainsFile(setup: Omit<SolanaSetup, 'chainsFile'>, extra: Record<string, unknown> = {}): string {
  return writeChainsFile({
    test: {
      solana: {
        rpc_url: setup.bed.url,
        genesis_hash: setup.bed.genesisHash,
        tokens: { usdc: setup.usdc, usdt: setup.usdt },
        poll_interval_ms: 100,
        ...extra,
      },
    },
  });
}

export async function startSolana(options: Partial<SolanaBedOptions> = {}, extra: Record<string, unknown> = {}): Promise<SolanaSetup> {
  const bed = new SolanaRpcServer(options);
  await bed.start();
  const usdc = await createMint(bed, 6);
  const usdt = await createMint(bed, 6);
  return { bed, usdc, usdt, chainsFile: solanaChainsFile({ bed, usdc, usdt }, extra) };
}

/** An organization with a test-mode Solana wallet of a fresh key pair (`signer`: the merchant's wallet app, to send refunds). */
export async function solanaMerchant(service: IsolatedService): Promise<{ id: string; test: Api; live: Api; wallet: Address; signer: KeyPairSigner }> {
  const org = await service.createOrg();
  const signer = await generateKeyPairSigner();
  const wallet = signer.address;
  const view = expectSuccess(await org.test.post('/wallets', { chain_family: 'solana', address: wallet }), 201);
  expect(view).toMatchObject({ chain_family: 'solana', network: null, first_address: wallet, active: true });
  return { id: org.id, test: org.test, live: org.live, wallet, signer };
}
