import type { ValidationError } from 'class-validator';

/** Settings whose value is a secret by its name: tokens, keys, secrets, passwords. */
const SECRET_SETTING = /(^|_)(TOKEN|TOKENS|SECRET|SECRETS|KEY|KEYS|PASSWORD)(_|$)/;

/**
 * A setting's value as a configuration error shows it: never a secret's (only how long it is), a URL without
 * its password and its query (where feeds and databases carry credentials), a connection string in keyword
 * form (`host=db password=...`) without its password, anything else as given, in JSON.
 * An operator learns which setting to fix and why, and the message can go to logs as it is.
 */
export function shownSetting(name: string, value: unknown): string {
  if (typeof value === 'string' && SECRET_SETTING.test(name)) return `<${value.length} characters, not shown>`;
  // A keyword-form password (`password=...`, quoted with libpq's \' escapes or bare) goes before the value is written as JSON.
  const masked = typeof value === 'string' ? value.replace(/(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi, '$1<not shown>') : value;
  const text = JSON.stringify(masked) ?? String(masked);
  return text.replace(/(\/\/[^\s/:@"]*:)[^\s/@"]*@/g, '$1<not shown>@').replace(/\?[^\s,"]*/g, '?<not shown>');
}

/** The lines of a configuration error for class-validator's findings: `  NAME=<value>: what is wrong`. */
export function settingErrorLines(errors: readonly ValidationError[]): string[] {
  return errors.map((e) => `  ${e.property}=${shownSetting(e.property, e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`);
}
