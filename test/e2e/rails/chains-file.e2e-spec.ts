import { runUntilExit as start } from '../../support/server';
import { writeChainsFile } from './rails-helpers';

/**
 * Each refused CHAINS_FILE is checked, message and exit code, by the unit tests of its loader
 * (src/modules/rails/rails.config.spec.ts) through startupFailure, which is how main.ts ends a refused
 * start. Here the built service is started on two of them to see that a refusal really stops the process
 * before it listens: a token's contract address (checked against the service's own catalog of tokens,
 * which the unit tests do not load) and a file that is not there.
 */
describe('CHAINS_FILE checked at start-up', () => {
  it.each([
    [
      { test: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337, tokens: { usdt: 'nope' } } } },
      'CHAINS_FILE test.ethereum.tokens.usdt: must be a contract address',
    ],
    [
      { test: { tron: { rpc_url: 'http://127.0.0.1:8545', chain_id: 1, tokens: { usdt: '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c' } } } },
      'CHAINS_FILE test.tron.tokens.usdt: must be a base58 Tron contract address (T...)',
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
