import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { TestClockModule } from './test-clock.module';

/** The test-clock module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'test-clock',
  nestModule: TestClockModule,
  uses: [],
  owner: '@platform-team',
  docs: 'docs/timing.md',
} satisfies ModuleManifest;
