import { ConfigError } from './app-config';
import { startupFailure } from './startup-failure';

describe('how a failed start ends the service', () => {
  it('writes a refused setting as its message alone, with exit code 1', () => {
    const failure = startupFailure(new ConfigError('Invalid configuration:\n  PORT="abc": must be a whole number'));
    expect(failure).toEqual({ code: 1, stderr: 'Invalid configuration:\n  PORT="abc": must be a whole number\n' });
  });

  it('writes any other failure as "Start-up failed" with its stack, with exit code 1', () => {
    const failure = startupFailure(new Error('port taken'));
    expect(failure.code).toBe(1);
    expect(failure.stderr).toMatch(/^Start-up failed: Error: port taken\n\s+at /);
    expect(startupFailure('gone')).toEqual({ code: 1, stderr: 'Start-up failed: gone\n' });
  });
});
