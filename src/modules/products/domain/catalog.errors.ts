import { DomainError } from '../../../shared/errors/domain-error';

/** Only the active version of a product can be replaced; older versions are history. */
export class ProductVersionInactiveError extends DomainError {
  readonly code = 'product_version_inactive';
  readonly kind = 'invalid_state' as const;
  constructor(activeHint = 'replace the active version of the product instead') {
    super('This product version is no longer active and cannot be replaced', { id: `is an inactive version; ${activeHint}` });
  }
}
