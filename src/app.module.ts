import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { AnalyticsModule } from './modules/analytics/analytics.module';
import { CheckoutModule } from './modules/checkout/checkout.module';
import { EventsModule } from './modules/events/events.module';
import { FilesModule } from './modules/files/files.module';
import { HealthModule } from './modules/health/health.module';
import { InvoicesModule } from './modules/invoices/invoices.module';
import { OrganizationsModule } from './modules/organizations/organizations.module';
import { PaymentsModule } from './modules/payments/payments.module';
import { ProductsModule } from './modules/products/products.module';
import { ProvidersModule } from './modules/providers/providers.module';
import { QuotesModule } from './modules/quotes/quotes.module';
import { RailsModule } from './modules/rails/rails.module';
import { RatesModule } from './modules/rates/rates.module';
import { TestClockModule } from './modules/test-clock/test-clock.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { AppConfig } from './shared/config/app-config';
import { dataSourceOptions } from './shared/db/data-source';
import { EnvelopeExceptionFilter } from './shared/http/exception.filter';
import { HttpsOnlyMiddleware } from './shared/http/middleware';
import { StorableTextPipe } from './shared/http/text-safety';
import { createValidationPipe } from './shared/http/validation';
import { KernelModule } from './shared/kernel.module';
import { Clock } from './shared/time/clock';

export interface AppModuleOptions {
  config: AppConfig;
  databaseUrl: string;
  logger: Logger;
  clock?: Clock;
}

/** Domain modules of the service; each owns its HTTP surface, commands, queries and tables. */
export const DOMAIN_MODULES = [
  OrganizationsModule, ProductsModule, RatesModule, QuotesModule, FilesModule, InvoicesModule, ProvidersModule, PaymentsModule, EventsModule, WebhooksModule,
  AnalyticsModule, TestClockModule, RailsModule, CheckoutModule,
];

@Module({})
export class AppModule implements NestModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    const { config, databaseUrl } = options;
    return {
      module: AppModule,
      imports: [
        KernelModule.forRoot(config, options.clock),
        CqrsModule.forRoot(),
        TypeOrmModule.forRoot({ ...dataSourceOptions(databaseUrl, config.DB_POOL_SIZE, config.usesEmbeddedDatabase, config.DB_PREPARED_STATEMENTS && !config.usesEmbeddedDatabase), entities: [], autoLoadEntities: true }),
        HealthModule,
        ...DOMAIN_MODULES,
      ],
      providers: [
        HttpsOnlyMiddleware,
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
        { provide: APP_PIPE, useClass: StorableTextPipe },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(HttpsOnlyMiddleware)
      .forRoutes({ path: '*path', method: RequestMethod.ALL });
  }
}
