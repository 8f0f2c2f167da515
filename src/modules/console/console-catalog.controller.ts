import { Controller, Get, Inject, Param, Req, Res, ValidationPipe } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PublicForm } from '../../shared/auth/auth.decorators';
import { DomainError, ValidationFailedError } from '../../shared/errors/domain-error';
import { parseJsonExactly } from '../../shared/http/json-number';
import { assertNoReservedKeys, assertStorableText, jsonDepthExceeds, MAX_JSON_DEPTH } from '../../shared/http/json-safety';
import { validationOptions } from '../../shared/http/validation';
import { GetProductQuery, ListProductsQuery, ProductRequestDto, ReplaceProductCommand, type ProductView } from '../products';
import { ConsoleFormPost, ConsoleGate, Form, formText, SignedMember } from './console-gate';
import type { Notice } from './domain/pages';
import { productPage, productsPage, productStringsOf } from './pages/product-pages';

/** The largest product body the form takes (characters). */
const MAX_BODY = 200_000;

/** The API's body for a product version (PUT /products/{id}), prefilled from the version shown. */
function requestOf(p: ProductView): object {
  return {
    name: p.name,
    description: p.description,
    metadata: p.metadata,
    image_id: p.image_id,
    schemas: p.schemas.map((s) => ({
      name: s.name,
      description: s.description,
      currency: s.currency,
      type: s.type,
      base_price: s.base_price,
      interval_type: s.interval_type,
      interval_count: s.interval_count,
      payment_type: s.payment_type,
      renew_type: s.renew_type,
      billing_type: s.billing_type,
      configurations: s.configurations.map((x) => ({
        starts_at: x.starts_at,
        ends_at: x.ends_at,
        price_per_unit: x.price_per_unit,
        metric: { id: x.metric_id },
      })),
    })),
  };
}

/**
 * The console's catalog pages: products with their billing schemas and usage prices, and a new
 * version of a product from the API's own body, validated as the API validates it and written by the
 * products module's command (checked against the role table, recorded in the audit log).
 */
@ApiExcludeController()
@Controller('console')
@PublicForm()
export class ConsoleCatalogController {
  private readonly validation = new ValidationPipe(validationOptions(true));

  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  @Get(':mode/products')
  async products(@Param('mode') mode: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/products', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const rows = await this.queries.execute(new ListProductsQuery(g.scope, 100, 0, false));
    res.status(200).send(productsPage(g.ctx, productStringsOf(g.ctx.lang), rows));
  }

  @Get(':mode/products/:id')
  async product(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/products', false);
    if (!g || !this.gate.allowed(g, res, 'read')) return;
    const p = await this.gate.found(g, res, () => this.queries.execute(new GetProductQuery(g.scope, id)));
    if (!p) return;
    this.render(g, res, p, 200, JSON.stringify(requestOf(p), null, 2), null);
  }

  private render(g: SignedMember, res: Response, p: ProductView, status: number, body: string, n: Notice): void {
    res.status(status).send(productPage(g.ctx, productStringsOf(g.ctx.lang), p, body, n));
  }

  @ConsoleFormPost(':mode/products/:id/versions')
  async newVersion(@Param('mode') mode: string, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const g = await this.gate.signed(req, res, mode, '/products', true);
    if (!g || !this.gate.allowed(g, res, 'catalog.write')) return;
    const current = await this.gate.found(g, res, () => this.queries.execute(new GetProductQuery(g.scope, id)));
    if (!current) return;
    const t = productStringsOf(g.ctx.lang);
    const text = formText((req.body as Form).body).slice(0, MAX_BODY);
    try {
      // As the API reads a JSON body: nesting first, numbers kept exact (a price written as a number is not rounded
      // through a float), then text the database cannot store and reserved keys.
      if (jsonDepthExceeds(text)) throw new ValidationFailedError({ body: `must not nest deeper than ${MAX_JSON_DEPTH} levels` });
      let json: unknown;
      try {
        json = parseJsonExactly(text);
      } catch {
        throw new ValidationFailedError({ body: t.bad_json });
      }
      assertStorableText(json);
      assertNoReservedKeys(json);
      const input = (await this.validation.transform(json, { type: 'body', metatype: ProductRequestDto })) as ProductRequestDto;
      const created = await this.commands.execute(new ReplaceProductCommand(g.scope, id, input));
      await this.gate.audit(g, req, 'product.new_version', created.id);
      res.redirect(303, `/console/${g.scope.mode}/products/${created.id}`);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (e.kind === 'not_found') return this.gate.notFound(g, res);
      this.render(g, res, current, 400, text, { kind: 'error', text: e.message });
    }
  }
}
