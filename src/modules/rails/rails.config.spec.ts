import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../shared/config/app-config';
import { startOutcome } from '../../shared/config/start-outcome';
import { networkOf } from './domain/chains-config';
import { railAdapters } from './rail-adapters';
import { loadRailsConfig } from './rails.config';

const ADAPTERS = railAdapters([]);
const dir = mkdtempSync(join(tmpdir(), 'chains-file-'));
let files = 0;

/** Writes `chains` as a CHAINS_FILE and loads it with `env` on top. */
function load(chains: unknown, env: Record<string, string | undefined> = {}) {
  const file = join(dir, `chains-${++files}.json`);
  writeFileSync(file, JSON.stringify(chains));
  return loadRailsConfig({ CHAINS_FILE: file, ...env }, ADAPTERS);
}

function refusal(chains: unknown, env: Record<string, string | undefined> = {}): string {
  try {
    load(chains, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected CHAINS_FILE to be refused');
}

describe('CHAINS_FILE rpc_url references to environment variables', () => {
  it('replaces each ${NAME} with its value, in both families and both modes', () => {
    const config = load(
      {
        live: {
          ethereum: { rpc_url: 'https://mainnet.example.com/v3/${ETH_RPC_KEY}', chain_id: 1 },
          bitcoin: { rpc_url: 'http://${BTC_RPC_USER}:${BTC_RPC_PASSWORD}@10.0.0.5:8332' },
        },
        test: { ethereum: { rpc_url: '${SEPOLIA_RPC_URL}', chain_id: 11155111 } },
      },
      { ETH_RPC_KEY: 'k3y', BTC_RPC_USER: 'watcher', BTC_RPC_PASSWORD: 'p%40ss', SEPOLIA_RPC_URL: 'https://sepolia.example.com/abc' },
    );
    expect(networkOf(config.chains, 'live', 'ethereum')?.rpcUrl).toBe('https://mainnet.example.com/v3/k3y');
    expect(networkOf(config.chains, 'live', 'bitcoin')?.rpcUrl).toBe('http://watcher:p%40ss@10.0.0.5:8332');
    expect(networkOf(config.chains, 'test', 'ethereum')?.rpcUrl).toBe('https://sepolia.example.com/abc');
  });

  it('leaves a URL without references as written, $ included', () => {
    const config = load({ live: { litecoin: { rpc_url: 'http://user:pa$$word@127.0.0.1:9332' } } });
    expect(networkOf(config.chains, 'live', 'litecoin')?.rpcUrl).toBe('http://user:pa$$word@127.0.0.1:9332');
  });

  it('refuses a missing or empty variable, naming it and the network, and never the value or the expanded URL', () => {
    const message = refusal(
      {
        live: {
          ethereum: { rpc_url: 'https://mainnet.example.com/v3/${ETH_RPC_KEY}', chain_id: 1 },
          bitcoin: { rpc_url: 'http://${BTC_RPC_USER}:${BTC_RPC_PASSWORD}@10.0.0.5:8332' },
        },
      },
      { BTC_RPC_USER: 'watcher-user-name', BTC_RPC_PASSWORD: '' },
    );
    expect(message).toContain('CHAINS_FILE live.ethereum.rpc_url: environment variable ETH_RPC_KEY is not set');
    expect(message).toContain('CHAINS_FILE live.bitcoin.rpc_url: environment variable BTC_RPC_PASSWORD is not set');
    expect(message).not.toContain('watcher-user-name');
    expect(message).not.toContain('10.0.0.5');
  });

  it('refuses a malformed or unclosed reference, naming the field', () => {
    expect(refusal({ live: { ethereum: { rpc_url: 'https://x.example.com/${1KEY}', chain_id: 1 } } }, { '1KEY': 'x' })).toContain(
      'CHAINS_FILE live.ethereum.rpc_url: ${1KEY} is not a valid environment variable reference',
    );
    expect(refusal({ live: { ethereum: { rpc_url: 'https://x.example.com/${KEY', chain_id: 1 } } }, { KEY: 'x' })).toContain(
      'CHAINS_FILE live.ethereum.rpc_url: a ${ reference is not closed with }',
    );
  });

  it('checks the expanded URL like any other, without repeating it', () => {
    const message = refusal({ live: { ethereum: { rpc_url: '${ETH_RPC_URL}', chain_id: 1 } } }, { ETH_RPC_URL: 'ftp://secret-host.example.com' });
    expect(message).toContain('CHAINS_FILE live.ethereum.rpc_url: must be an http(s):// or ws(s):// URL');
    expect(message).not.toContain('secret-host');
  });
});

/*
 * CHAINS_FILE refused at start-up. main.ts reads it before it starts anything (checkLiveRails, which
 * loads it as here, with the provider catalog's tokens) and ends with startupFailure's code and message.
 * test/e2e/rails/chains-file.e2e-spec.ts starts the built process on two refusals to see that one really
 * stops it that way: a token's contract address, which needs the service's own catalog of tokens (here
 * the adapters have none), and a file that is not there.
 */

/** `content` as a CHAINS_FILE (a string as it is, anything else as JSON), as the e2e tests write it. */
function chainsFile(content: unknown): string {
  const file = join(dir, `chains-${++files}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** A start on `env` over the harness's settings, as far as the CHAINS_FILE check decides it (startOutcome). */
const start = (env: Record<string, string>) => startOutcome((e) => loadRailsConfig(e, ADAPTERS), env);

describe('CHAINS_FILE checked at start-up', () => {
  it('passes a good file, so each refusal below is the one field', () => {
    expect(start({ CHAINS_FILE: chainsFile({ test: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337 } } }) })).toEqual({ code: 0, output: '' });
  });

  it.each([
    [{ test: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 'x' } } }, 'CHAINS_FILE test.ethereum.chain_id: must be a positive whole number'],
    [{ live: { ethereum: { rpc_url: 'ftp://node', chain_id: 1 } } }, 'CHAINS_FILE live.ethereum.rpc_url: must be an http(s):// or ws(s):// URL'],
    [{ test: { cardano: { rpc_url: 'http://127.0.0.1:8545', chain_id: 1 } } }, 'CHAINS_FILE test.cardano: unknown network'],
    ['{"test": ', 'CHAINS_FILE='],
    // One chain in both sections: a transfer on it would be seen in both modes.
    [
      { live: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337 } }, test: { ethereum: { rpc_url: 'http://127.0.0.1:8546', chain_id: 31337 } } },
      'CHAINS_FILE live.ethereum.chain_id: 31337 is also the chain of test.ethereum',
    ],
  ])('refuses %j with a message naming the field', (content, message) => {
    const { code, output } = start({ CHAINS_FILE: chainsFile(content) });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(output).toContain('Invalid configuration');
    expect(output).toContain(message);
    expect(output).not.toMatch(/"msg":"listening on/); // the service's own listening line, not the start-up warning
  });

  it('refuses an ALLOW_NO_LIVE_RAILS that is not true or false, naming it', () => {
    const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.test', SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') };
    const { code, output } = start({ ...production, CHAINS_FILE: chainsFile({ live: {}, test: {} }), ALLOW_NO_LIVE_RAILS: 'maybe' });
    expect(code).toBe(1);
    expect(output).toMatch(/^\s+ALLOW_NO_LIVE_RAILS="maybe": must be true or false/m);
  });

  it('refuses a CHAINS_FILE that is not there', () => {
    const { code, output } = start({ CHAINS_FILE: '/nonexistent/chains.json' });
    expect(code).not.toBe(0);
    expect(output).toContain('CHAINS_FILE="/nonexistent/chains.json": file not found');
  });
});
