import { spawn } from 'node:child_process';
import { MAIN, ROOT } from '../../support/server';
import { writeChainsFile } from './rails-helpers';

function start(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'postgres://127.0.0.1:1/none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolveRun) => child.once('close', (code) => {
    clearTimeout(timer);
    resolveRun({ code, output });
  }));
}

describe('CHAINS_FILE checked at start-up', () => {
  it.each([
    [{ test: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 'x' } } }, 'CHAINS_FILE test.ethereum.chain_id: must be a positive whole number'],
    [{ live: { ethereum: { rpc_url: 'ftp://node', chain_id: 1 } } }, 'CHAINS_FILE live.ethereum.rpc_url: must be an http(s):// or ws(s):// URL'],
    [{ test: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337, tokens: { usdt: 'nope' } } } }, 'CHAINS_FILE test.ethereum.tokens.usdt: must be a contract address'],
    [{ test: { tron: { rpc_url: 'http://127.0.0.1:8545', chain_id: 1 } } }, 'CHAINS_FILE test.tron: unknown network'],
    ['{"test": ', 'CHAINS_FILE='],
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
