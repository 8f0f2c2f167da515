// The test clock module's public surface: the composition root imports only this file.
export { TestClockModule } from './test-clock.module';
export { WorkerPassesModule } from './worker-passes.module';
