import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { AnalyticsModule } from './modules/analytics';
import { CheckoutModule } from './modules/checkout';
import { ConsoleModule } from './modules/console';
import { EventsModule } from './modules/events';
import { FilesModule } from './modules/files';
import { HealthModule } from './modules/health';
import { InvoicesModule } from './modules/invoices';
import { OrganizationsModule } from './modules/organizations';
import { PaymentsModule } from './modules/payments';
import { ProductsModule } from './modules/products';
import { ProvidersModule } from './modules/providers';
import { QuotesModule } from './modules/quotes';
import { RailsModule } from './modules/rails';
import { RatesModule } from './modules/rates';
import { RefundsModule } from './modules/refunds';
import { SubscriptionsModule } from './modules/subscriptions';
import { TestClockModule } from './modules/test-clock';
import { WebhooksModule } from './modules/webhooks';
import { AppConfig } from './shared/config/app-config';
import { dataSourceOptions } from './shared/db/data-source';
import { BodilessRouteInterceptor } from './shared/http/bodiless-route.interceptor';
import { EnvelopeExceptionFilter } from './shared/http/exception.filter';
import { HttpsOnlyMiddleware } from './shared/http/middleware';
import { OtherModeHintInterceptor } from './shared/http/other-mode-hint.interceptor';
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
  OrganizationsModule,
  ProductsModule,
  RatesModule,
  QuotesModule,
  FilesModule,
  InvoicesModule,
  ProvidersModule,
  PaymentsModule,
  EventsModule,
  WebhooksModule,
  AnalyticsModule,
  TestClockModule,
  RailsModule,
  RefundsModule,
  CheckoutModule,
  SubscriptionsModule,
  ConsoleModule,
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
        TypeOrmModule.forRoot({
          ...dataSourceOptions(databaseUrl, config.dbPoolSize, config.DB_PREPARED_STATEMENTS, config.DB_CONNECTION_LIFETIME_SECONDS),
          entities: [],
          autoLoadEntities: true,
        }),
        HealthModule,
        ...DOMAIN_MODULES,
      ],
      providers: [
        HttpsOnlyMiddleware,
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
        { provide: APP_PIPE, useClass: StorableTextPipe },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: BodilessRouteInterceptor },
        { provide: APP_INTERCEPTOR, useClass: OtherModeHintInterceptor },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpsOnlyMiddleware).forRoutes({ path: '*path', method: RequestMethod.ALL });
  }
}
