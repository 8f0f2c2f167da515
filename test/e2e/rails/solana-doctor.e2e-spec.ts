import type { IsolatedService } from '../../support/isolated';
import { runCli } from '../../support/server';
import { type SolanaService, type SolanaSetup, solanaChainsFile, startSolanaService } from './solana-helpers';

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

describe("cli doctor checks a Solana node through the Solana adapter's own calls", () => {
  let setup: SolanaSetup;
  let service: IsolatedService;
  let stop: SolanaService['stop'] | undefined;
  beforeAll(async () => {
    ({ setup, service, stop } = await startSolanaService());
  }, 120_000);
  afterAll(async () => stop?.());

  const checks = async (chainsFile: string) => {
    const run = await runCli(['doctor', '--json'], { ...service.cliEnv, CHAINS_FILE: chainsFile });
    const report = JSON.parse(run.stdout) as { checks: Check[] };
    return new Map(report.checks.filter((c) => c.name.startsWith('chain.test.solana')).map((c) => [c.name, c]));
  };

  it('passes a healthy node of the configured cluster: genesis hash, health, a fresh confirmed slot, the finalized slot', async () => {
    const found = await checks(setup.chainsFile);
    expect(found.get('chain.test.solana.node')).toMatchObject({ status: 'ok' });
    expect(found.get('chain.test.solana.chain')).toMatchObject({ status: 'ok' });
    expect(found.get('chain.test.solana.chain')!.detail).toContain(setup.bed.genesisHash);
    expect(found.get('chain.test.solana.health')).toMatchObject({ status: 'ok' });
    expect(found.get('chain.test.solana.sync')).toMatchObject({ status: 'ok' });
    expect(found.get('chain.test.solana.finalized')).toMatchObject({ status: 'ok' });
    expect(setup.bed.calls.get('getGenesisHash')).toBeGreaterThan(0);
    expect(setup.bed.calls.get('getBlockTime')).toBeGreaterThan(0);
  });

  it('fails a node of another cluster naming genesis_hash, and a node that says it is behind', async () => {
    const other = solanaChainsFile(setup, { genesis_hash: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d' });
    const wrong = await checks(other);
    expect(wrong.get('chain.test.solana.chain')).toMatchObject({ status: 'fail' });
    expect(wrong.get('chain.test.solana.chain')!.detail).toContain('test.solana.genesis_hash');
    setup.bed.options.healthy = false;
    try {
      const behind = await checks(setup.chainsFile);
      expect(behind.get('chain.test.solana.health')).toMatchObject({ status: 'fail' });
      expect(behind.get('chain.test.solana.health')!.detail).toContain('behind');
    } finally {
      setup.bed.options.healthy = true;
    }
  });
});
