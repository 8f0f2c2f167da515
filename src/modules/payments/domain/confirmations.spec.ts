import { applyConfirmations, ConfirmationReport } from './confirmations';

const base: ConfirmationReport = { requested: 'PENDING', reported: null, current: 0, required: 12 };

describe('applyConfirmations', () => {
  it.each([
    ['a new pending payment without a count', {}, { status: 'PENDING', confirmations: 0 }],
    ['below the requirement stays PENDING', { reported: 5 }, { status: 'PENDING', confirmations: 5 }],
    ['one short stays PENDING', { reported: 11 }, { status: 'PENDING', confirmations: 11 }],
    ['reaching the requirement completes', { reported: 12 }, { status: 'COMPLETED', confirmations: 12 }],
    ['beyond the requirement completes', { reported: 40 }, { status: 'COMPLETED', confirmations: 40 }],
    ['COMPLETED reported below the requirement is held PENDING', { requested: 'COMPLETED', reported: 3 }, { status: 'PENDING', confirmations: 3 }],
    ['COMPLETED without a count counts as fully confirmed', { requested: 'COMPLETED' }, { status: 'COMPLETED', confirmations: 12 }],
    ['COMPLETED without a count keeps a higher count', { requested: 'COMPLETED', current: 30 }, { status: 'COMPLETED', confirmations: 30 }],
    ['a lower report keeps the higher count', { current: 8, reported: 2 }, { status: 'PENDING', confirmations: 8 }],
    ['a repeat without a count keeps the count', { current: 8 }, { status: 'PENDING', confirmations: 8 }],
    ['FAILED passes through', { requested: 'FAILED', reported: 3 }, { status: 'FAILED', confirmations: 3 }],
    ['CANCELLED passes through', { requested: 'CANCELLED' }, { status: 'CANCELLED', confirmations: 0 }],
    ['no requirement: PENDING stays PENDING', { required: 0, reported: 0 }, { status: 'PENDING', confirmations: 0 }],
    ['no requirement: COMPLETED is COMPLETED', { required: 0, requested: 'COMPLETED' }, { status: 'COMPLETED', confirmations: 0 }],
    [
      'a completed payment stays completed when more confirmations come',
      { requested: 'COMPLETED', current: 12, reported: 13 },
      { status: 'COMPLETED', confirmations: 13 },
    ],
    ['a requirement of 1 completes on the first confirmation', { required: 1, reported: 1 }, { status: 'COMPLETED', confirmations: 1 }],
  ] as Array<[string, Partial<ConfirmationReport>, unknown]>)('%s', (_name, change, expected) => {
    expect(applyConfirmations({ ...base, ...change })).toEqual(expected);
  });
});
