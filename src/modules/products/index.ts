// The products module's public surface: other modules and the composition root import only this file.
export { ProductsModule } from './products.module';
export { CreateProductCommand, type ProductIdResult } from './commands/create-product/create-product.command';
export { ReplaceProductCommand } from './commands/replace-product/replace-product.command';
export { GetProductQuery } from './queries/get-product/get-product.query';
export { ListProductsQuery } from './queries/list-products/list-products.query';
export { GetPricingSchemaQuery, type PricingSchema } from './queries/get-pricing-schema/get-pricing-schema.query';
export { GetProductsByIdsQuery, type ProductsByIds } from './queries/get-products-by-ids/get-products-by-ids.query';
export type { BillingSchemaView, ConfigurationView, ProductView } from './dto/product.view';
export { ProductEvent, PRODUCT_EVENT_TYPES, type ProductEventType } from './events/product.events';
// The body of a product and its new versions (the management console validates its form against it, as the API does).
export { ProductRequestDto } from './commands/create-product/create-product.request.dto';
