import { Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { NotFoundError } from '../../shared/errors/domain-error';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { BackgroundWork } from '../../shared/lifecycle/background-work';

export interface WorkerPassDto {
  /** The worker's name, as it registered with BackgroundWork (`invoice-sweeper`, `webhook-dispatcher`, ...). */
  worker: string;
  /** How long the pass took. */
  duration_ms: number;
}

/**
 * Tests only: POST /test_helpers/workers/{name}/run runs one pass of the named background worker now
 * and answers once it has finished, so a test need not wait for the worker's next tick. The route exists
 * only when WORKER_PASSES_ON_DEMAND=true (AppModule imports WorkerPassesModule then; start-up refuses the
 * setting with NODE_ENV=production), and it is left out of the API document. Test keys only. The pass is
 * the worker's own, one at a time with its scheduled passes, over every organization, except the webhook
 * dispatcher's, which sends the caller's organization's due deliveries (both modes) and waits for those only.
 */
@ApiExcludeController()
@Controller('test_helpers/workers')
export class WorkerPassesController {
  constructor(@Inject(BackgroundWork) private readonly work: BackgroundWork) {}

  @Post(':name/run')
  @HttpCode(200)
  @Authenticated({ write: true, testOnly: true })
  async run(@RequiredCaller() caller: CallerContext, @Param('name') name: string): Promise<EnvelopeReply<WorkerPassDto>> {
    const started = Date.now();
    if (!(await this.work.runPass(name, caller.organizationId))) throw new NotFoundError('worker', 'worker_not_found');
    return reply({ worker: name, duration_ms: Date.now() - started }, 'Worker pass finished');
  }

  /** The workers a pass can be asked of (GET /test_helpers/workers). */
  @Get()
  @HttpCode(200)
  @Authenticated({ testOnly: true })
  list(): EnvelopeReply<{ workers: string[] }> {
    return reply({ workers: this.work.passNames }, 'Workers');
  }
}
