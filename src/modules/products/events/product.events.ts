import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { ProductView } from '../dto/product.view';

/** The products module's events, published after commit: `product.created`, `product.updated` (previousAttributes). */
export const PRODUCT_EVENT_TYPES = ['product.created', 'product.updated'] as const;
export type ProductEventType = (typeof PRODUCT_EVENT_TYPES)[number];

export class ProductEvent extends DomainEvent<ProductEventType, ProductView> {}

declareEvents(ProductEvent, PRODUCT_EVENT_TYPES);
