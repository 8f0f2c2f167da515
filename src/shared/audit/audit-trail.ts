import { applyDecorators, CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { mergeMap, Observable } from 'rxjs';
import type { Mode } from '../auth/request-context';
import { type AppRequest, EnvelopeReply } from '../http/envelope';

/** Something an API key did that the organization's audit log keeps (decisions §25: who, what, when, from where). */
export interface KeyAction {
  organizationId: string;
  mode: Mode;
  keyId: string;
  action: string;
  target: string | null;
  ip: string | null;
}

/**
 * Where API keys' audited actions go. The module that keeps the audit log (the console) registers its
 * writer at start; without one (a deployment without that module) nothing is kept. A plain class,
 * provided by the kernel module, like OtherModeIds.
 */
export class AuditTrail {
  private readonly logger = new Logger('AuditTrail');
  private writer: ((entry: KeyAction) => Promise<void>) | null = null;

  register(writer: (entry: KeyAction) => Promise<void>): void {
    this.writer = writer;
  }

  /**
   * Writes the entry; never throws. The change it records has committed by then: failing the request
   * now would tell the client a done change failed, and its retry (the idempotency key released with the
   * error) would make the change twice. A lost entry is logged (`audit entry not written`) instead.
   */
  async record(entry: KeyAction): Promise<void> {
    if (!this.writer) return;
    try {
      await this.writer(entry);
    } catch (e) {
      this.logger.error({ err: e, ...entry }, 'audit entry not written');
    }
  }
}

/** An audited route's action name, or a function of its body (null: this request is not audited). */
export type AuditedAction = string | ((body: Record<string, unknown>) => string | null);

const AUDITED_ACTION = 'audited_action';

/**
 * Records, after it succeeded, what an API key did on this route in the audit log: the action, its
 * target (the answer's `id`, else the path's `:id`), the key, the mode and the client address. For
 * changes an organization wants to see who made (where money or data goes, what was voided, refunded,
 * cancelled), not for the volume of ordinary traffic: creating invoices and payments is not audited.
 * A keyless (payer) call and a replayed idempotent answer are not recorded.
 */
export function Audited(action: AuditedAction): MethodDecorator {
  return applyDecorators(SetMetadata(AUDITED_ACTION, action), UseInterceptors(AuditedActionInterceptor));
}

@Injectable()
export class AuditedActionInterceptor implements NestInterceptor {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(AuditTrail) private readonly trail: AuditTrail,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<AppRequest>();
    const caller = req.state.caller;
    const audited = this.reflector.get<AuditedAction | undefined>(AUDITED_ACTION, context.getHandler());
    if (!caller || audited === undefined) return next.handle();
    const action = typeof audited === 'string' ? audited : audited((req.body ?? {}) as Record<string, unknown>);
    if (action === null) return next.handle();
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        if (res.getHeader('Idempotent-Replayed') === 'true') return result;
        const data = result instanceof EnvelopeReply ? (result.data as { id?: unknown } | null) : null;
        const param = (req.params as Record<string, string | undefined>).id;
        const target = typeof data?.id === 'string' ? data.id : (param ?? null);
        await this.trail.record({ organizationId: caller.organizationId, mode: caller.mode, keyId: caller.keyId, action, target, ip: req.ip ?? null });
        return result;
      }),
    );
  }
}
