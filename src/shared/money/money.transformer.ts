import type { ValueTransformer } from 'typeorm';
import { Amount, fromDb, renderAmount } from './money';

/** numeric(78,30) <-> exact Amount. PostgreSQL hands numeric back as text, so no float is involved. */
export const amountTransformer: ValueTransformer = {
  to: (value: Amount | null | undefined) => (value == null ? value : renderAmount(value)),
  from: (value: string | null) => (value == null ? value : fromDb(value)),
};

export const MONEY_COLUMN = { type: 'numeric', precision: 78, scale: 30, transformer: amountTransformer } as const;
