import { runUntilExit as start } from '../../support/server';
import { writeChainsFile } from './rails-helpers';

describe('CHAINS_FILE checked at start-up', () => {
  it.each([
    [{ test: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 'x' } } }, 'CHAINS_FILE test.ethereum.chain_id: must be a positive whole number'],
    [{ live: { ethereum: { rpc_url: 'ftp://node', chain_id: 1 } } }, 'CHAINS_FILE live.ethereum.rpc_url: must be an http(s):// or ws(s):// URL'],
    [
      { test: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337, tokens: { usdt: 'nope' } } } },
      'CHAINS_FILE test.ethereum.tokens.usdt: must be a contract address',
    ],
    [{ test: { cardano: { rpc_url: 'http://127.0.0.1:8545', chain_id: 1 } } }, 'CHAINS_FILE test.cardano: unknown network'],
    [
      { test: { tron: { rpc_url: 'http://127.0.0.1:8545', chain_id: 1, tokens: { usdt: '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c' } } } },
      'CHAINS_FILE test.tron.tokens.usdt: must be a base58 Tron contract address (T...)',
    ],
    ['{"test": ', 'CHAINS_FILE='],
    // One chain in both sections: a transfer on it would be seen in both modes.
    [
      { live: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337 } }, test: { ethereum: { rpc_url: 'http://127.0.0.1:8546', chain_id: 31337 } } },
      'CHAINS_FILE live.ethereum.chain_id: 31337 is also the chain of test.ethereum',
    ],
  ])('refuses %j with a message naming the field', async (content, message) => {
    const { code, output } = await start({ CHAINS_FILE: writeChainsFile(content) });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(output).toContain('Invalid configuration');
    expect(output).toContain(message);
    expect(output).not.toMatch(/"msg":"listening on/); // the service's own listening line, not the start-up warning
  });

  it('refuses a CHAINS_FILE that is not there', async () => {
    const { code, output } = await start({ CHAINS_FILE: '/nonexistent/chains.json' });
    expect(code).not.toBe(0);
    expect(output).toContain('CHAINS_FILE="/nonexistent/chains.json": file not found');
  });
});
