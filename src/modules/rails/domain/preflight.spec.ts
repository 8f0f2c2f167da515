import { chainCheck, checkName, confirmationsCheck, liveNetworksCheck, MIN_LIVE_FINALITY_DEPTH, nodeUnreachableCheck, safeErrorText } from './preflight';

const live = { mode: 'live' as const, network: 'ethereum', chain: '1', chainField: 'chain_id' };

describe('the checks every chain family shares', () => {
  it('names a check by mode, network and what it checks', () => {
    expect(checkName({ mode: 'test', network: 'litecoin' }, 'txindex')).toBe('chain.test.litecoin.txindex');
  });

  it('passes a node on the configured chain and fails one on another, naming both and the field', () => {
    expect(chainCheck(live, '1')).toMatchObject({ name: 'chain.live.ethereum.chain', status: 'ok' });
    const wrong = chainCheck(live, '11155111');
    expect(wrong).toMatchObject({ status: 'fail', chain: '11155111', expected_chain: '1' });
    expect(wrong.detail).toContain('live.ethereum.chain_id');
    expect(wrong.detail).toContain('chain 11155111');
  });

  it('never shows a URL from an error (an rpc_url carries credentials)', () => {
    const error = new Error('HTTP request failed.\nURL: http://watcher:secret@10.0.0.5:8332');
    expect(safeErrorText(error)).toBe('HTTP request failed.');
    expect(safeErrorText(new Error('connect ECONNREFUSED at http://user:pw@host:1/x now'))).toBe('connect ECONNREFUSED at <rpc_url> now');
    const check = nodeUnreachableCheck({ mode: 'live', network: 'bitcoin' }, new Error('fetch http://u:p@h failed'));
    expect(check).toMatchObject({ name: 'chain.live.bitcoin.node', status: 'fail' });
    expect(check.detail).not.toContain('u:p');
    expect(check.detail).toContain('live.bitcoin.rpc_url');
  });

  it.each([
    ['live', 64, 12, 'ok'],
    ['live', 12, 12, 'ok'],
    ['live', 10, 12, 'warn'],
    ['test', 3, 6, 'warn'],
    ['live', MIN_LIVE_FINALITY_DEPTH - 1, 2, 'warn'],
    ['test', 2, 2, 'ok'],
    ['live', 6, null, 'ok'],
  ] as const)('%s network with confirmations %i and required %s: %s', (mode, finalityDepth, required, status) => {
    const check = confirmationsCheck({ mode, network: 'bitcoin', finalityDepth }, required);
    expect(check).toMatchObject({ name: `chain.${mode}.bitcoin.confirmations`, status, finality_depth: finalityDepth, required_confirmations: required });
    expect(check.detail).toContain(`${mode}.bitcoin.confirmations`);
  });

  it('explains the two settings: the file is the finality depth, the provider decides when a payment counts', () => {
    expect(confirmationsCheck({ mode: 'live', network: 'bitcoin', finalityDepth: 6 }, 2).detail).toMatch(
      /finality depth.*required confirmations \(2 by default/,
    );
    expect(confirmationsCheck({ mode: 'live', network: 'bitcoin', finalityDepth: 1 }, 2).detail).toContain('section 5');
  });

  it('fails live mode without a network in production, warns elsewhere', () => {
    expect(liveNetworksCheck([], true).status).toBe('fail');
    expect(liveNetworksCheck([], false).status).toBe('warn');
    expect(liveNetworksCheck(['bitcoin'], true)).toMatchObject({ status: 'ok', detail: expect.stringContaining('bitcoin') });
  });
});
