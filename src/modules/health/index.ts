// The health module's public surface: other modules and the composition root import only this file.
export { HealthModule } from './health.module';
export { Metrics } from './metrics';
