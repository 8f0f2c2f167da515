import type { ValidationError } from 'class-validator';
import { fieldErrorsOf, MISSING_FIELD_MESSAGE, UNKNOWN_FIELD_MESSAGE } from './field-errors';

const failed = (property: string, value: unknown, constraints: Record<string, string>, children: ValidationError[] = []): ValidationError => ({
  property,
  value,
  constraints,
  children,
});

describe('fieldErrorsOf', () => {
  it.each([
    ['a field left out', undefined, { isString: 'name must be a string' }, MISSING_FIELD_MESSAGE],
    ['a field of the wrong type', 42, { isString: 'name must be a string' }, 'must be a string'],
    ['a field sent as null', null, { isString: 'name must be a string' }, 'must be a string'],
    ['a field no route declares', 'x', { whitelistValidation: 'property name should not exist' }, UNKNOWN_FIELD_MESSAGE],
  ])('says %s plainly', (_what, value, constraints, message) => {
    expect(fieldErrorsOf([failed('name', value, constraints)])).toEqual({ name: message });
  });

  it('names nested fields by their path, a missing one as required', () => {
    const item = failed('0', { type: 'PAYMENT_INTENT' }, {}, [
      failed('currency', undefined, { isIn: 'currency must be one of ...' }),
      failed('price', 'ten', { isAmount: 'price must be a decimal' }),
    ]);
    expect(fieldErrorsOf([failed('items', [{}], {}, [item])])).toEqual({ 'items.0.currency': MISSING_FIELD_MESSAGE, 'items.0.price': 'must be a decimal' });
  });
});
