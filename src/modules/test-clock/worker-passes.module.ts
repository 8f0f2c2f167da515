import { Module } from '@nestjs/common';
import { WorkerPassesController } from './worker-passes.controller';

/**
 * Tests only: POST /test_helpers/workers/{name}/run (WorkerPassesController). Imported by AppModule only
 * with WORKER_PASSES_ON_DEMAND=true, which start-up refuses with NODE_ENV=production: otherwise the route
 * does not exist.
 */
@Module({ controllers: [WorkerPassesController] })
export class WorkerPassesModule {}
