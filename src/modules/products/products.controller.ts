import { Audited } from '../../shared/audit/audit-trail';
import { Idempotent } from '../../shared/idempotency/idempotency';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { CreateProductCommand } from './commands/create-product/create-product.command';
import { ProductRequestDto } from './commands/create-product/create-product.request.dto';
import { ReplaceProductCommand } from './commands/replace-product/replace-product.command';
import { ListProductsQueryDto, PRODUCT_REQUEST_EXAMPLE, ProductIdDto, productExample, ProductResponseDto } from './dto/product.response.dto';
import { GetProductQuery } from './queries/get-product/get-product.query';
import { DEFAULT_PRODUCT_LIMIT, ListProductsQuery } from './queries/list-products/list-products.query';

const ID_EXAMPLE = { id: 'product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b' };

@ApiTags('Products')
@Controller('products')
export class ProductsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited('product.create')
  @Idempotent()
  @ApiOperation({ summary: 'Create a product with billing schemas and usage tiers (version 1)' })
  @ApiBody({ type: ProductRequestDto, examples: { recurring: { value: PRODUCT_REQUEST_EXAMPLE } } })
  @ApiEnvelope({ type: ProductIdDto, example: ID_EXAMPLE, message: 'Product created' })
  @ApiErrors(400, 401, 403)
  async create(@RequiredCaller() caller: CallerContext, @Body() body: ProductRequestDto) {
    return reply(await this.commands.execute(new CreateProductCommand(scopeOf(caller), body)), 'Product created');
  }

  @Put(':id')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Audited('product.new_version')
  @ApiOperation({
    summary: 'Replace a product by writing a new version',
    description:
      'Same body as creation; omitted optional fields are cleared. The new version gets new ids and keeps the ' +
      'version_group_ids (schemas and tiers by position); the replaced version stays readable, inactive. ' +
      'Replacing an inactive version is 400 (product_version_inactive). Answers the new product id.',
  })
  @ApiParam({ name: 'id', description: 'Id of the active product version' })
  @ApiBody({ type: ProductRequestDto, examples: { recurring: { value: PRODUCT_REQUEST_EXAMPLE } } })
  @ApiEnvelope({ type: ProductIdDto, example: ID_EXAMPLE, message: 'Product updated' })
  @ApiErrors(400, 401, 403, 404)
  async replace(@RequiredCaller() caller: CallerContext, @Param('id') id: string, @Body() body: ProductRequestDto) {
    return reply(await this.commands.execute(new ReplaceProductCommand(scopeOf(caller), id, body)), 'Product updated');
  }

  @Get(':id')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'Read one product version (active or not) with its schemas and tiers; is_active is 1 or 0' })
  @ApiParam({ name: 'id', description: 'Product id (any version)' })
  @ApiEnvelope({ type: ProductResponseDto, example: productExample(1), message: 'Product retrieved' })
  @ApiErrors(400, 401, 403, 404)
  async get(@RequiredCaller() caller: CallerContext, @Param('id') id: string) {
    return reply(await this.queries.execute(new GetProductQuery(scopeOf(caller), id)), 'Product retrieved');
  }

  @Get()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'List products, newest first: active versions unless include_inactive=true; is_active is a boolean' })
  @ApiEnvelope({ type: ProductResponseDto, isArray: true, example: [productExample(true)], message: 'Products retrieved' })
  @ApiErrors(400, 401, 403)
  async list(@RequiredCaller() caller: CallerContext, @Query() query: ListProductsQueryDto) {
    const products = await this.queries.execute(
      new ListProductsQuery(scopeOf(caller), query.limit ?? DEFAULT_PRODUCT_LIMIT, query.offset ?? 0, query.include_inactive === 'true'),
    );
    return reply(products, 'Products retrieved');
  }
}
