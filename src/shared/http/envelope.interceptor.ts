import { CallHandler, ExecutionContext, Injectable, NestInterceptor, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { AppRequest, Envelope, EnvelopeReply, envOf } from './envelope';

/** Wraps every successful controller result in the interface's envelope. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<AppRequest>();
    const res = http.getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown) => {
        if (result instanceof StreamableFile || res.headersSent) return result;
        const replyValue = result instanceof EnvelopeReply ? result : new EnvelopeReply(result ?? {}, 'Success');
        const envelope: Envelope = {
          status: replyValue.statusOverride ?? res.statusCode,
          data: replyValue.data,
          error: null,
          message: replyValue.message,
          env: envOf(req),
          log: { request_id: req.state.requestId },
          validator: null,
          support_id: null,
        };
        return envelope;
      }),
    );
  }
}
