import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { ProductView } from '../dto/product.view';

/** The products module's events, published after commit: `product.created`, `product.updated` (previousAttributes). */
export const PRODUCT_EVENT_TYPES = ['product.created', 'product.updated'] as const;
export type ProductEventType = (typeof PRODUCT_EVENT_TYPES)[number];

export class ProductEvent extends DomainEvent<ProductEventType, ProductView> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const PRODUCT_EVENTS = declareEvents(ProductEvent, PRODUCT_EVENT_TYPES);
