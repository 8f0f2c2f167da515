import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { descriptorChecksum } from '../../../src/modules/rails/utxo/descriptor-checksum';
import { LitecoinNode } from '../../chain/litecoin-node';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { linesWith } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { writeChainsFile } from './rails-helpers';

/** Testnet versions (tpub/tprv), which Litecoin Core writes on regtest. */
const TESTNET = { public: 0x043587cf, private: 0x04358394 };

/** One character of a checksum replaced by another of its alphabet. */
const oneCharChanged = (descriptor: string) => descriptor.slice(0, -1) + (descriptor.endsWith('q') ? 'p' : 'q');

describe('UTXO safety checks against a real Litecoin Core node without txindex (regtest)', () => {
  let node: LitecoinNode;
  let service: IsolatedService;
  beforeAll(async () => {
    node = await LitecoinNode.start({ txindex: false });
    const chainsFile = writeChainsFile({ test: { litecoin: { rpc_url: node.rpcUrl, chain: 'regtest', poll_interval_ms: 500 } } });
    // Chain ids asked every second: the transaction index is still asked only once.
    service = await startIsolatedService({ CHAINS_FILE: chainsFile, CHAIN_ID_CHECK_SECONDS: '1' });
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await node?.stop();
  });

  it('warns once at start that the node runs without txindex=1, and says so in utxo_txindex_missing, but keeps serving', async () => {
    const warnings = await eventually(async () => {
      const lines = linesWith(service.server, '"event":"utxo_txindex_missing"');
      expect(lines).toHaveLength(1);
      return lines;
    });
    const line = JSON.parse(warnings[0]);
    expect(line).toMatchObject({ level: 40, event: 'utxo_txindex_missing', network: 'litecoin', mode: 'test' });
    expect(line.msg).toContain('txindex=1');
    const metrics = await (await fetch(`${service.server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^utxo_txindex_missing\{network="litecoin",mode="test"\} 1$/m);
    // A warning, not a refusal: the network still takes wallets and hands out addresses.
    const org = await service.createOrg();
    const vpub = HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;
    expectSuccess(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: vpub }), 201);
    // Asked once per process, not at every chain id check.
    await new Promise((r) => setTimeout(r, 2500));
    expect(linesWith(service.server, '"event":"utxo_txindex_missing"')).toHaveLength(1);
  });

  it("computes a descriptor's checksum as litecoind does, takes the node's checksum and refuses a changed one", async () => {
    const master = HDKey.fromMasterSeed(randomBytes(32), TESTNET);
    const origin = master.fingerprint.toString(16).padStart(8, '0');
    const account = master.derive("m/84'/1'/0'");
    // The node is given the private form and answers the public one (its canonical form), each with its checksum.
    const secret = `wpkh([${origin}/84h/1h/0h]${account.privateExtendedKey}/0/*)`;
    const info = await node.rpc<{ descriptor: string; checksum: string }>('getdescriptorinfo', [secret]);
    expect(descriptorChecksum(secret)).toBe(info.checksum);
    const [script, checksum] = info.descriptor.split('#');
    expect(script).toContain(account.publicExtendedKey);
    expect(descriptorChecksum(script)).toBe(checksum);

    const org = await service.createOrg();
    const changed = oneCharChanged(info.descriptor);
    await expect(node.rpc('getdescriptorinfo', [changed])).rejects.toThrow(/checksum/i);
    const refused = expectError(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: changed }), 400, { field: 'xpub' });
    expect(refused.validator.xpub).toContain('no longer matches its checksum');
    // The script type changed after export, the checksum kept: the node's checksum no longer fits it either.
    const retyped = info.descriptor.replace(/^wpkh\(/, 'pkh(');
    const refusedType = expectError(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: retyped }), 400, { field: 'xpub' });
    expect(refusedType.validator.xpub).toContain('no longer matches its checksum');
    for (const body of [refused, refusedType]) expect(JSON.stringify(body)).not.toContain(account.publicExtendedKey.slice(4, 40));

    const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: info.descriptor }), 201);
    const [nodeFirst] = await node.rpc<string[]>('deriveaddresses', [info.descriptor, [0, 0]]);
    expect(wallet.first_address).toBe(nodeFirst);
  });
});
