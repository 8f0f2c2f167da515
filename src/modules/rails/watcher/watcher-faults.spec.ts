import { ChainMoved, MAX_BACKOFF_MS, RpcFault, backoffMs, errorText, retryDelayMs, rpcCall } from './watcher-faults';

describe('errorText', () => {
  it("prefers viem's short message and names the code", () => {
    expect(errorText({ shortMessage: 'HTTP request failed.', message: 'long\nbody', code: 'ECONNREFUSED' })).toBe('ECONNREFUSED: HTTP request failed.');
  });

  it('keeps the first line of a message, at most 500 characters', () => {
    expect(errorText(new Error('first\nsecond'))).toBe('first');
    expect(errorText(new Error('x'.repeat(600)))).toHaveLength(500);
    expect(errorText('plain')).toBe('plain');
  });
});

describe('backoff', () => {
  it('doubles from 250 ms up to the maximum, with ±20% jitter', () => {
    expect(backoffMs(1, 0.5)).toBe(250);
    expect(backoffMs(3, 0.5)).toBe(1000);
    expect(backoffMs(1, 0)).toBe(200);
    expect(backoffMs(1, 1)).toBeCloseTo(300);
    expect(backoffMs(50, 0.5)).toBe(MAX_BACKOFF_MS);
  });

  it('reads a chain that moved once again at once, and backs off after that', () => {
    expect(retryDelayMs(new ChainMoved('moved'), 1, 900)).toBe(50);
    expect(retryDelayMs(new ChainMoved('moved'), 2, 900)).toBe(900);
    expect(retryDelayMs(new Error('other'), 1, 900)).toBe(900);
  });
});

describe('rpcCall', () => {
  it('answers what the call answers', async () => {
    await expect(rpcCall('head', () => Promise.resolve(7n))).resolves.toBe(7n);
  });

  it('turns a failure into an RpcFault naming the call', async () => {
    const failure = await rpcCall('block', () => Promise.reject(new Error('timeout'))).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RpcFault);
    expect((failure as RpcFault).call).toBe('block');
    expect((failure as RpcFault).message).toBe('block failed: timeout');
  });
});
