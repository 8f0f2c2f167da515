import type { Request } from 'express';
import type { CallerContext } from '../auth/request-context';
import { envOfMode } from '../auth/request-context';

/** The interface's response envelope: every response, success or error, has this shape. */
export interface Envelope<T = unknown> {
  status: number | string;
  data: T;
  error: string | null;
  message: string | null;
  env: 'development' | 'production';
  log: { request_id: string } | null;
  validator: Record<string, string> | null;
  support_id: string | null;
  /** Extra to the interface: stable machine-readable error code (decisions §1). */
  code?: string;
}

export interface RequestState {
  requestId: string;
  caller?: CallerContext | null;
  defaultEnv: 'development' | 'production';
  /** Set once the JSON body has been read (JsonBodyReader), so it is read at most once. */
  bodyRead?: boolean;
}

export type AppRequest = Request & { state: RequestState };

export function envOf(req: AppRequest): 'development' | 'production' {
  const caller = req.state?.caller;
  return caller ? envOfMode(caller.mode) : (req.state?.defaultEnv ?? 'development');
}

/**
 * A controller returns this to answer with an envelope whose `status` is not the HTTP status
 * (the short_state quirk) or with its own human message.
 */
export class EnvelopeReply<T> {
  constructor(
    readonly data: T,
    readonly message: string,
    readonly statusOverride?: string,
    /** The HTTP status of this answer when it differs from the route's (a repeated create answered 200 instead of 201). */
    readonly httpStatus?: number,
  ) {}
}

export function reply<T>(data: T, message: string): EnvelopeReply<T> {
  return new EnvelopeReply(data, message);
}
