import { AsyncOutput, TurnBatchedOutput } from './turn-batched-output';

/** An output that records each write it gets and what was flushed synchronously. */
function recordingOutput(): AsyncOutput & { writes: string[]; synced: number } {
  const out = {
    writes: [] as string[],
    synced: 0,
    write(text: string) {
      out.writes.push(text);
    },
    flush(cb?: (err?: Error) => void) {
      cb?.();
    },
    flushSync() {
      out.synced++;
    },
  };
  return out;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('TurnBatchedOutput', () => {
  it('hands the lines of one turn on in one write once the turn is done', async () => {
    const out = recordingOutput();
    const batched = new TurnBatchedOutput(out);
    batched.write('{"a":1}\n');
    batched.write('{"b":2}\n');
    batched.write('{"c":3}\n');
    expect(out.writes).toEqual([]);
    await nextTurn();
    expect(out.writes).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n']);
  });

  it('never holds a line past its turn: each turn gets its own write', async () => {
    const out = recordingOutput();
    const batched = new TurnBatchedOutput(out);
    batched.write('one\n');
    await nextTurn();
    batched.write('two\n');
    await nextTurn();
    await nextTurn();
    expect(out.writes).toEqual(['one\n', 'two\n']);
  });

  it('writes what it holds before flushing synchronously (exit)', () => {
    const out = recordingOutput();
    const batched = new TurnBatchedOutput(out);
    batched.write('last words\n');
    batched.flushSync();
    expect(out.writes).toEqual(['last words\n']);
    expect(out.synced).toBe(1);
  });

  it('writes what it holds before an asynchronous flush calls back', async () => {
    const out = recordingOutput();
    const batched = new TurnBatchedOutput(out);
    batched.write('held\n');
    await new Promise<void>((resolve) => batched.flush(() => resolve()));
    expect(out.writes).toEqual(['held\n']);
  });
});
