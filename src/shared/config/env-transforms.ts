/**
 * class-transformer `@Transform` functions for settings read from the environment: text to a
 * boolean or an integer. An empty or missing value becomes undefined (the default applies); a value
 * that is not one of the accepted spellings passes through unchanged, so the validator names it.
 */
export const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === ''
    ? undefined
    : value === true || value === 'true' || value === '1'
      ? true
      : value === false || value === 'false' || value === '0'
        ? false
        : value;

export const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : isIntegerText(value) ? Number(value) : value);

/** Text (or a number) that is a whole number; anything else is left for the validator. */
const isIntegerText = (value: unknown) =>
  (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') && /^-?\d+$/.test(String(value));
