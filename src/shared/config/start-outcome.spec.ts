import { ConfigError } from './app-config';
import { HARNESS_ENV, REFUSED, refusalFacts, startOutcome } from './start-outcome';

describe('startOutcome and refusalFacts', () => {
  const refuse = (env: NodeJS.ProcessEnv) => {
    if (env.SPEED !== undefined) throw new ConfigError(`Invalid configuration:\n  SPEED="${env.SPEED}": must be a whole number`);
    return env;
  };

  it('hands the loader the harness settings with the env on top, and ends a pass with 0 and nothing written', () => {
    let seen: NodeJS.ProcessEnv = {};
    expect(startOutcome((env) => (seen = env), { EXTRA: '1' })).toEqual({ code: 0, output: '' });
    expect(seen).toEqual({ ...HARNESS_ENV, EXTRA: '1' });
    expect(refusalFacts({ code: 0, output: '' }, 'SPEED', 'fast')).toEqual({ failed: false, invalid: false, named: false, listening: false });
  });

  it('ends a refusal as main.ts does, and sees it named', () => {
    const outcome = startOutcome(refuse, { SPEED: 'fast' });
    expect(outcome).toEqual({ code: 1, output: 'Invalid configuration:\n  SPEED="fast": must be a whole number\n' });
    expect(refusalFacts(outcome, 'SPEED', 'fast')).toEqual(REFUSED);
  });

  it('tells a refusal of another variable, another error, or a start that listened', () => {
    expect(refusalFacts(startOutcome(refuse, { SPEED: 'fast' }), 'PORT', 'fast').named).toBe(false);
    const crash = startOutcome(() => {
      throw new Error('port taken');
    }, {});
    expect(refusalFacts(crash, 'PORT', '1')).toEqual({ failed: true, invalid: false, named: false, listening: false });
    expect(refusalFacts({ code: 1, output: 'listening on 0\n' }, 'PORT', '1').listening).toBe(true);
  });
});
