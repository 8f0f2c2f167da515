import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../shared/config/app-config';
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
