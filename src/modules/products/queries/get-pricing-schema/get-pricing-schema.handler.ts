import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { toPricingSchema } from '../../dto/product-view.mapper';
import { CatalogRepository } from '../../persistence/catalog.repository';
import { GetPricingSchemaQuery, PricingSchema } from './get-pricing-schema.query';

@QueryHandler(GetPricingSchemaQuery)
export class GetPricingSchemaHandler implements IQueryHandler<GetPricingSchemaQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
  ) {}

  async execute({ scope, productId, billingSchemaId }: GetPricingSchemaQuery): Promise<PricingSchema | null> {
    const [product, schema] = await this.tx.readSnapshot(
      scope,
      (m) => Promise.all([this.repo.findProduct(m, scope, productId), this.repo.findSchema(m, scope, billingSchemaId)]),
      false,
    );
    return toPricingSchema(product, schema);
  }
}
