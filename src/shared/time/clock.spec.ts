import { SystemClock } from './clock';

describe('SystemClock', () => {
  it('gives real time, for every scope', async () => {
    const clock = new SystemClock();
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(1000);
    expect(Math.abs((await clock.nowFor({ organizationId: 'org_1', mode: 'test' })).getTime() - Date.now())).toBeLessThan(1000);
    expect(await clock.movedScopes()).toEqual([]);
  });
});
