import { runUntilExit as start } from '../../support/server';

/**
 * Each refused setting is checked, message and exit code, by the unit tests of the loader that refuses
 * it (src/shared/config/app-config.spec.ts for the kernel's, src/modules/<m>/<m>.config.spec.ts for a
 * module's own) through startupFailure, which is how main.ts ends a refused start. Here the built
 * service is started on one setting of each kind to see that a refusal really stops the process before
 * it listens: a non-zero exit (1) and the message on its output.
 */
describe('configuration checked at start-up', () => {
  it.each([
    // the kernel's settings (app-config.ts), checked first
    ['PORT', 'abc'],
    // a module's own settings class (invoices.config.ts): main.ts checks the modules' settings at start too
    ['PAYMENT_TOLERANCE', '2'],
  ])('refuses %s=%s with a message naming the variable', async (name, value) => {
    const { code, output } = await start({ [name]: value });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(code).toBe(1);
    expect(output).toContain('Invalid configuration');
    expect(output).toMatch(new RegExp(`^\\s+${name}="?${value.replace('.', '\\.')}"?: `, 'm'));
    expect(output).not.toContain('listening');
  });
});
