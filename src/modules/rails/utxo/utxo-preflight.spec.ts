import { txindexCheck, UTXO_MAX_HEADER_GAP, utxoSyncCheck } from './utxo-preflight';

const network = { mode: 'live' as const, network: 'bitcoin' };

describe('whether a UTXO node follows its chain (getblockchaininfo)', () => {
  it.each([
    [{ blocks: 900_000, headers: 900_000, initialblockdownload: false }, 'ok'],
    [{ blocks: 900_000, headers: 900_000 + UTXO_MAX_HEADER_GAP, initialblockdownload: false }, 'ok'],
    [{ blocks: 900_000, headers: 900_000 + UTXO_MAX_HEADER_GAP + 1, initialblockdownload: false }, 'fail'],
    [{ blocks: 120_000, headers: 900_000, initialblockdownload: true, verificationprogress: 0.0412 }, 'fail'],
    [{ blocks: 900_000, headers: 900_000, initialblockdownload: true }, 'fail'],
    [{ blocks: 10, headers: 10 }, 'ok'],
  ])('%j: %s', (info, status) => {
    expect(utxoSyncCheck(network, info)).toMatchObject({ name: 'chain.live.bitcoin.sync', status, blocks: info.blocks, headers: info.headers });
  });

  it('says how far the first sync is', () => {
    const check = utxoSyncCheck(network, { blocks: 120_000, headers: 900_000, initialblockdownload: true, verificationprogress: 0.0412 });
    expect(check.detail).toContain('initial block download (block 120000 of 900000 headers, 4.1% verified)');
  });
});

describe('the transaction index (getindexinfo)', () => {
  it('passes a synced txindex', () => {
    expect(txindexCheck(network, { txindex: { synced: true, best_block_height: 10 } })).toMatchObject({ name: 'chain.live.bitcoin.txindex', status: 'ok' });
  });

  it('fails a node without it, saying to restart with txindex=1', () => {
    const check = txindexCheck(network, {});
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('txindex=1');
    // Another index does not stand in for it.
    expect(txindexCheck(network, { coinstatsindex: { synced: true } }).status).toBe('fail');
  });

  it('fails while the index is still being built', () => {
    const check = txindexCheck(network, { txindex: { synced: false, best_block_height: 1234 } });
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('1234');
  });

  it('warns when the node cannot say (no getindexinfo)', () => {
    expect(txindexCheck(network, null).status).toBe('warn');
  });
});
