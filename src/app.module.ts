import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { WritePositionInterceptor } from './shared/db/write-position.interceptor';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { MODULE_MANIFESTS } from './module-registry';
import { WorkerPassesModule } from './modules/test-clock';
import { AppConfig } from './shared/config/app-config';
import { dataSourceOptions } from './shared/db/data-source';
import { BodilessRouteInterceptor } from './shared/http/bodiless-route.interceptor';
import { EnvelopeExceptionFilter } from './shared/http/exception.filter';
import { HttpsOnlyMiddleware } from './shared/http/middleware';
import { OtherModeHintInterceptor } from './shared/http/other-mode-hint.interceptor';
import { RequestInterceptors } from './shared/http/request-interceptors';
import { StorableTextPipe } from './shared/http/text-safety';
import { createValidationPipe } from './shared/http/validation';
import { KernelModule } from './shared/kernel.module';
import type { ModuleManifest } from './shared/modules/module-manifest';
import { Clock } from './shared/time/clock';

export interface AppModuleOptions {
  config: AppConfig;
  databaseUrl: string;
  logger: Logger;
  clock?: Clock;
  /** The modules to load: every registered one (src/module-registry.ts) unless a test hands its own list. */
  manifests?: readonly ModuleManifest[];
}

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
        // The modules, from their manifests: each owns its HTTP surface, commands, queries and tables.
        ...(options.manifests ?? MODULE_MANIFESTS).map((m) => m.nestModule),
        // Tests only (refused in production): one background worker pass on demand.
        ...(config.WORKER_PASSES_ON_DEMAND ? [WorkerPassesModule] : []),
      ],
      providers: [
        HttpsOnlyMiddleware,
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
        { provide: APP_PIPE, useClass: StorableTextPipe },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        BodilessRouteInterceptor,
        OtherModeHintInterceptor,
        WritePositionInterceptor,
        // The three above as one interceptor (request-interceptors.ts): one layer of Nest's per-request wrapping instead of three.
        { provide: APP_INTERCEPTOR, useClass: RequestInterceptors },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpsOnlyMiddleware).forRoutes({ path: '*path', method: RequestMethod.ALL });
  }
}
