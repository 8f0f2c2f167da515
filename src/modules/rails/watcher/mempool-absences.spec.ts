import { MempoolAbsences } from './mempool-absences';

describe('MempoolAbsences', () => {
  it('puts a transfer in doubt only once a block has passed since it was missed', () => {
    const absences = new MempoolAbsences();
    expect(absences.observe('k', false, 10n)).toBe(false);
    expect(absences.observe('k', false, 10n)).toBe(false);
    expect(absences.observe('k', false, 11n)).toBe(true);
    // Forgotten once put in doubt: missed again, it waits another block.
    expect(absences.observe('k', false, 11n)).toBe(false);
  });

  it('starts the wait afresh when the transaction is seen again', () => {
    const absences = new MempoolAbsences();
    absences.observe('k', false, 10n);
    expect(absences.observe('k', true, 11n)).toBe(false);
    expect(absences.observe('k', false, 12n)).toBe(false);
    expect(absences.observe('k', false, 13n)).toBe(true);
  });

  it('forgets a transfer back in the mempool after a reorg', () => {
    const absences = new MempoolAbsences();
    absences.observe('k', false, 10n);
    absences.forget('k');
    expect(absences.observe('k', false, 11n)).toBe(false);
  });
});
