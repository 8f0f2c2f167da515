import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { FieldErrors, ValidationFailedError } from '../../../shared/errors/domain-error';
import { newId, newVersionGroupId } from '../../../shared/ids/ids';
import { Amount, parseAmount } from '../../../shared/money/money';
import { AggregationType, inheritVersionGroups, recurringTermsOf, RecurringTerms, tierProblems } from '../domain/catalog-rules';
import { BillingConfigurationRecord } from '../persistence/billing-configuration.record';
import { BillingSchemaRecord } from '../persistence/billing-schema.record';
import { CatalogRepository } from '../persistence/catalog.repository';
import { MetricRecord } from '../persistence/metric.record';
import { ProductRecord } from '../persistence/product.record';
import { ProductImages } from '../queries/product-images';
import type { MetricInputDto, ProductRequestDto } from './create-product/create-product.request.dto';

/** The version a replace supersedes: its groups are inherited position by position. */
export interface PreviousVersion {
  product: ProductRecord;
  schemas: BillingSchemaRecord[];
  configurations: BillingConfigurationRecord[];
}

interface TierDraft {
  startsAt: Amount;
  endsAt: Amount | null;
  pricePerUnit: Amount;
  metric: MetricInputDto;
}

/**
 * Writes one product version (product, schemas, tiers) inside the caller's transaction, after
 * the business rules the request DTO cannot express: recurring terms, tier bounds and overlaps,
 * and metric references.
 */
@Injectable()
export class ProductWriter {
  constructor(
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
    @Inject(ProductImages) private readonly images: ProductImages,
  ) {}

  /** Checks the rules that need no database; throws 400 with every problem at its field path. */
  validateShape(input: ProductRequestDto): RecurringTerms[] {
    const errors: FieldErrors = {};
    if (!input.name.trim()) errors.name = 'must not be blank';
    input.schemas.forEach((schema, i) => {
      if (!schema.name.trim()) errors[`schemas.${i}.name`] = 'must not be blank';
    });
    const terms = input.schemas.map((schema, i) => {
      const result = recurringTermsOf(schema);
      if ('errors' in result) {
        for (const [field, message] of Object.entries(result.errors)) errors[`schemas.${i}.${field}`] = message;
        return null;
      }
      return result.terms;
    });
    input.schemas.forEach((schema, i) => {
      const tiers = (schema.configurations ?? []).map((c) => ({
        startsAt: parseAmount(c.starts_at),
        endsAt: c.ends_at == null ? null : parseAmount(c.ends_at),
        metric: metricIdentity(c.metric),
      }));
      for (const [path, message] of Object.entries(tierProblems(tiers))) errors[`schemas.${i}.configurations.${path}`] = message;
    });
    if (Object.keys(errors).length) throw new ValidationFailedError(errors);
    return terms as RecurringTerms[];
  }

  async write(m: EntityManager, scope: Scope, input: ProductRequestDto, now: Date, previous: PreviousVersion | null): Promise<string> {
    const terms = this.validateShape(input);
    if (input.image_id != null) {
      const problem = await this.images.problem(m, scope, input.image_id);
      if (problem) throw new ValidationFailedError({ image_id: problem });
    }
    const drafts: TierDraft[][] = input.schemas.map((schema) =>
      (schema.configurations ?? []).map((c) => ({
        startsAt: parseAmount(c.starts_at),
        endsAt: c.ends_at == null ? null : parseAmount(c.ends_at),
        pricePerUnit: parseAmount(c.price_per_unit),
        metric: c.metric,
      })),
    );
    const metricIds = await this.resolveMetrics(m, scope, drafts, now);

    // Tiers referring to one metric by id and by key are the same metric: check overlaps again on resolved ids.
    const errors: FieldErrors = {};
    drafts.forEach((tiers, i) => {
      const problems = tierProblems(tiers.map((t, j) => ({ startsAt: t.startsAt, endsAt: t.endsAt, metric: metricIds[i][j] })));
      for (const [path, message] of Object.entries(problems)) errors[`schemas.${i}.configurations.${path}`] = message;
    });
    if (Object.keys(errors).length) throw new ValidationFailedError(errors);

    const product: ProductRecord = {
      id: newId('product'),
      organizationId: scope.organizationId,
      mode: scope.mode,
      versionGroupId: previous?.product.versionGroupId ?? newVersionGroupId('product'),
      version: (previous?.product.version ?? 0) + 1,
      isActive: true,
      name: input.name.trim(),
      description: input.description ?? '',
      imageId: input.image_id ?? null,
      metadata: input.metadata ?? {},
      createdAt: now,
      updatedAt: null,
    };
    const previousSchemas = [...(previous?.schemas ?? [])].sort((a, b) => a.position - b.position);
    const schemaGroups = inheritVersionGroups(
      previousSchemas.map((s) => s.versionGroupId),
      input.schemas.length,
      () => newVersionGroupId('schema'),
    );

    const schemas: BillingSchemaRecord[] = [];
    const configurations: BillingConfigurationRecord[] = [];
    input.schemas.forEach((schema, i) => {
      const record: BillingSchemaRecord = {
        id: newId('schema'),
        organizationId: scope.organizationId,
        mode: scope.mode,
        productId: product.id,
        versionGroupId: schemaGroups[i],
        isActive: true,
        position: i,
        name: schema.name.trim(),
        description: schema.description ?? '',
        type: schema.type,
        currency: schema.currency,
        basePrice: parseAmount(schema.base_price),
        intervalType: terms[i].interval_type,
        intervalCount: terms[i].interval_count,
        paymentType: terms[i].payment_type,
        renewType: terms[i].renew_type,
        billingType: terms[i].billing_type,
        createdAt: now,
        updatedAt: null,
      };
      schemas.push(record);
      const previousSchema = previousSchemas[i];
      const previousTiers = previousSchema
        ? (previous?.configurations ?? []).filter((c) => c.schemaId === previousSchema.id).sort((a, b) => a.position - b.position)
        : [];
      const tierGroups = inheritVersionGroups(
        previousTiers.map((c) => c.versionGroupId),
        drafts[i].length,
        () => newVersionGroupId('config'),
      );
      drafts[i].forEach((tier, j) => {
        configurations.push({
          id: newId('config'),
          organizationId: scope.organizationId,
          mode: scope.mode,
          schemaId: record.id,
          versionGroupId: tierGroups[j],
          isActive: true,
          position: j,
          startsAt: tier.startsAt,
          endsAt: tier.endsAt,
          pricePerUnit: tier.pricePerUnit,
          metricId: metricIds[i][j],
          createdAt: now,
          updatedAt: null,
        });
      });
    });

    await this.repo.insertProduct(m, product);
    await this.repo.insertSchemas(m, schemas);
    await this.repo.insertConfigurations(m, configurations);
    return product.id;
  }

  /**
   * Metric id per tier: referenced ids must exist in scope; keys find a metric or create it. A
   * metric_key or aggregation_type sent beside an existing metric must agree with it (its name is
   * kept as it is).
   */
  private async resolveMetrics(m: EntityManager, scope: Scope, drafts: TierDraft[][], now: Date): Promise<string[][]> {
    const all = drafts.flat().map((t) => t.metric);
    const referenced = [...new Set(all.filter((x) => x.id != null).map((x) => x.id as string))];
    const byId = new Map((await this.repo.findMetrics(m, scope, referenced)).map((x) => [x.id, x]));
    const errors: FieldErrors = {};
    drafts.forEach((tiers, i) =>
      tiers.forEach((t, j) => {
        if (t.metric.id == null) return;
        const path = `schemas.${i}.configurations.${j}.metric`;
        const found = byId.get(t.metric.id);
        if (!found) errors[`${path}.id`] = 'is not a metric of this organization';
        else Object.assign(errors, metricConflicts(path, t.metric, found));
      }),
    );
    if (Object.keys(errors).length) throw new ValidationFailedError(errors);

    const byKey = new Map<string, MetricInputDto>();
    for (const metric of all) if (metric.id == null && metric.metric_key && !byKey.has(metric.metric_key)) byKey.set(metric.metric_key, metric);
    for (const [key, metric] of byKey) {
      await this.repo.insertMetricIfAbsent(m, {
        id: newId('metric'),
        organizationId: scope.organizationId,
        mode: scope.mode,
        metricKey: key,
        name: metric.name ?? key,
        aggregationType: metric.aggregation_type as AggregationType,
        createdAt: now,
        updatedAt: null,
      } satisfies MetricRecord);
    }
    const ofKey = new Map((await this.repo.findMetricsByKeys(m, scope, [...byKey.keys()])).map((x) => [x.metricKey, x]));
    drafts.forEach((tiers, i) =>
      tiers.forEach((t, j) => {
        if (t.metric.id != null) return;
        Object.assign(errors, metricConflicts(`schemas.${i}.configurations.${j}.metric`, t.metric, ofKey.get(t.metric.metric_key as string)!));
      }),
    );
    if (Object.keys(errors).length) throw new ValidationFailedError(errors);
    return drafts.map((tiers) => tiers.map((t) => (t.metric.id != null ? t.metric.id : ofKey.get(t.metric.metric_key as string)!.id)));
  }
}

function metricConflicts(path: string, input: MetricInputDto, existing: MetricRecord): FieldErrors {
  const errors: FieldErrors = {};
  if (input.metric_key != null && input.metric_key !== existing.metricKey) {
    errors[`${path}.metric_key`] = `does not match the metric ${existing.id} (metric_key ${existing.metricKey})`;
  }
  if (input.aggregation_type != null && input.aggregation_type !== existing.aggregationType) {
    errors[`${path}.aggregation_type`] = `does not match the existing metric ${existing.metricKey} (aggregation_type ${existing.aggregationType})`;
  }
  return errors;
}

function metricIdentity(metric: MetricInputDto): string {
  return metric.id != null ? `id:${metric.id}` : `key:${metric.metric_key}`;
}
