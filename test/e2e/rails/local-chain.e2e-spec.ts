import { LocalChain } from '../../chain/local-chain';
import { HARDHAT_ACCOUNTS, addressAt } from './rails-helpers';

describe('the local chain of the tests (Hardhat Network)', () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await LocalChain.start();
  }, 90_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it('funds the accounts our derivation gives for the test mnemonic', async () => {
    const accounts = await (chain.public.request as (args: { method: string }) => Promise<string[]>)({ method: 'eth_accounts' });
    expect(accounts.slice(0, 5).map((a) => a.toLowerCase())).toEqual(HARDHAT_ACCOUNTS.map((a) => a.toLowerCase()));
    expect(accounts.slice(0, 20).map((a) => a.toLowerCase())).toEqual(Array.from({ length: 20 }, (_, i) => addressAt(0, i).toLowerCase()));
    expect(await chain.public.getChainId()).toBe(31337);
  });

  it('deploys the 6-decimal test token and moves it, one Transfer log per transfer', async () => {
    const token = await chain.deployToken();
    expect(await chain.public.readContract({ address: token, abi: [{ type: 'function', name: 'decimals', inputs: [], outputs: [{ type: 'uint8' }], stateMutability: 'view' }], functionName: 'decimals' })).toBe(6);
    const to = addressAt(1, 0);
    const receipt = await chain.receipt(await chain.sendToken(token, 0, to, 25_494_902n));
    expect(receipt.status).toBe('success');
    expect(receipt.logs).toHaveLength(1);
    expect(await chain.tokenBalance(token, to)).toBe(25_494_902n);
    const before = await chain.blockNumber();
    await chain.mine(3);
    expect(await chain.blockNumber()).toBe(before + 3n);
  });
});
