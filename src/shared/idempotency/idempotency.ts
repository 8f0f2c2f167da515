import { applyDecorators, CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Response } from 'express';
import { createHash } from 'node:crypto';
import { from, lastValueFrom, Observable } from 'rxjs';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { SecretBox } from '../crypto/secret-box';
import { TransactionRunner } from '../db/transaction-runner';
import { BadRequestError, ConflictError } from '../errors/domain-error';
import { describeError } from '../http/describe-error';
import { AppRequest, EnvelopeReply } from '../http/envelope';
import { Clock } from '../time/clock';
import { idempotencyScope } from './idempotency-scope';

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** Order-independent JSON text of a body, so `{a,b}` and `{b,a}` are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object' && value.constructor === Object) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value === undefined ? null : value) ?? 'null';
}

interface StoredRow {
  fingerprint: string;
  state: 'in_flight' | 'applied' | 'done';
  created_at: Date;
  response_status: number | null;
  response_body: StoredAnswer | StoredFailure | SealedAnswer | null;
}

interface StoredAnswer {
  data: unknown;
  message: string;
}

/**
 * What is stored instead of an answer when the request failed after its changes were committed (the key
 * marked applied): its status and code, so a retry is told it was carried out instead of running it again.
 */
interface StoredFailure {
  failed: { status: number; code: string };
}

/** A stored answer may carry a secret (a webhook signing secret on create): it is kept sealed. */
interface SealedAnswer {
  sealed: string;
}

const answerContext = (organizationId: string, mode: string, key: string) => `idempotency:${organizationId}:${mode}:${key}`;

function isSealedAnswer(body: StoredAnswer | StoredFailure | SealedAnswer): body is SealedAnswer {
  return typeof (body as SealedAnswer).sealed === 'string';
}

/**
 * Seals, with the current key, up to `limit` stored answers that are plain (stored before answers
 * were sealed) or sealed with an older key; returns how many. Run at start until 0.
 */
export async function sealStoredAnswers(m: EntityManager, box: SecretBox, limit: number): Promise<number> {
  const rows: Array<{ organization_id: string; mode: string; key: string; response_body: StoredAnswer | StoredFailure | SealedAnswer }> = await m.query(
    `SELECT organization_id, mode, key, response_body FROM idempotency_keys
      WHERE response_body IS NOT NULL AND (response_body->>'sealed' IS NULL OR response_body->>'sealed' NOT LIKE $1)
      LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [`sealed:v1:${box.currentKeyId}:%`, limit],
  );
  for (const r of rows) {
    const context = answerContext(r.organization_id, r.mode, r.key);
    const plain = isSealedAnswer(r.response_body) ? box.open(r.response_body.sealed, context) : JSON.stringify(r.response_body);
    await m.query(`UPDATE idempotency_keys SET response_body = $4::jsonb WHERE organization_id = $1 AND mode = $2 AND key = $3`, [
      r.organization_id,
      r.mode,
      r.key,
      JSON.stringify({ sealed: box.seal(plain, context) }),
    ]);
  }
  return rows.length;
}

/**
 * Gives up the stored answers sealed with a key lost for good (`pattern`: sealedWithPattern of its id):
 * each key is kept, done without an answer, so a retry gets 409 `idempotency_answer_lost` (the request
 * was carried out; look its result up) and never runs the request a second time. Returns how many; run
 * until 0.
 */
export async function forgetAnswersSealedWith(m: EntityManager, pattern: string, limit: number): Promise<number> {
  const [{ n }]: Array<{ n: number }> = await m.query(
    `WITH lost AS (
       SELECT organization_id, mode, key FROM idempotency_keys WHERE response_body->>'sealed' LIKE $1 LIMIT $2 FOR UPDATE SKIP LOCKED
     ), forgotten AS (
       UPDATE idempotency_keys k SET response_body = NULL
         FROM lost WHERE k.organization_id = lost.organization_id AND k.mode = lost.mode AND k.key = lost.key
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM forgotten`,
    [pattern, limit],
  );
  return n;
}

/**
 * Idempotency-Key on creating POSTs (Stripe's contract): the first request with a key runs and
 * its success is stored for IDEMPOTENCY_TTL_HOURS; a retry with the same key and the same body
 * gets the stored response again with `Idempotent-Replayed: true`; the same key with another body
 * is 400; while the first is still running, 409. A request that fails before it commits anything is
 * not stored, so it can be retried with the same key. The request's first committed transaction also
 * marks the key `applied`: if the process dies before the answer is stored, a retry gets 409
 * `idempotency_answer_lost` instead of carrying the request out a second time, and so does a retry
 * of a request that failed after that commit (its failure is kept in place of the answer); a claim
 * that never got that far is taken over by a retry once it is two minutes old (if the request it
 * belonged to is still running, its commit then fails: only one of the two is carried out). Keys are per organization and mode, in PostgreSQL, so every instance
 * sees them. The stored answer is sealed (SecretBox): an answer that carries a secret (a webhook
 * endpoint's signing secret) is replayed in full but never sits in the table in plain text.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<AppRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const header = req.headers['idempotency-key'];
    const caller = req.state.caller;
    if (header === undefined || !caller) return next.handle();
    return from(this.run(req, res, String(header), caller.organizationId, caller.mode, next));
  }

  private async run(req: AppRequest, res: Response, key: string, organizationId: string, mode: string, next: CallHandler): Promise<unknown> {
    if (!KEY_SHAPE.test(key)) {
      throw new BadRequestError('Invalid Idempotency-Key header', 'validation_failed', { 'Idempotency-Key': 'must be 1 to 255 printable ASCII characters' });
    }
    // An upload counts by its content too (multipart parsers put the file on req.file with its hash).
    const file = (req as { file?: { originalname?: string; size?: number; received?: { sha256?: string } } }).file;
    const fileText = file ? canonical({ name: file.originalname ?? null, size: file.size ?? null, sha256: file.received?.sha256 ?? null }) : '';
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.path}\n${canonical(req.body)}\n${fileText}`)
      .digest('hex');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.config.IDEMPOTENCY_TTL_HOURS * 3_600_000);
    const staleBefore = new Date(now.getTime() - 120_000);
    const m = this.tx.manager;

    const claimed: unknown[] = await m.query(
      `INSERT INTO idempotency_keys (organization_id, mode, key, fingerprint, state, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'in_flight', $5, $6)
       ON CONFLICT (organization_id, mode, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', response_status = NULL, response_body = NULL,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at < $5 OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.created_at < $7)
       RETURNING 1`,
      [organizationId, mode, key, fingerprint, now, expiresAt, staleBefore],
    );
    if (!claimed.length) {
      const [row]: StoredRow[] = await m.query(
        `SELECT fingerprint, state, created_at, response_status, response_body FROM idempotency_keys WHERE organization_id = $1 AND mode = $2 AND key = $3`,
        [organizationId, mode, key],
      );
      if (!row) throw new ConflictError('A request with this Idempotency-Key was just completed; retry', 'idempotency_conflict');
      if (row.fingerprint !== fingerprint) {
        throw new BadRequestError('This Idempotency-Key was used with a different request', 'idempotency_key_reused', {
          'Idempotency-Key': 'was already used with a different request body or path',
        });
      }
      if (row.state === 'applied' && new Date(row.created_at) < staleBefore) {
        // Its changes were committed but the process stopped before its answer was stored.
        throw new ConflictError(
          'The request with this Idempotency-Key was carried out, but its answer was lost when the service stopped; look the result up instead of retrying',
          'idempotency_answer_lost',
        );
      }
      if (row.state !== 'done') throw new ConflictError('A request with this Idempotency-Key is still in progress', 'idempotency_conflict');
      if (row.response_body === null) {
        // Its answer was sealed with a SECRETS_KEY that was lost for good and given up (cli secrets:forget-key).
        throw new ConflictError(
          'The request with this Idempotency-Key was carried out, but its stored answer could no longer be read and was discarded; look the result up instead of retrying',
          'idempotency_answer_lost',
        );
      }
      const body = row.response_body;
      const answer: StoredAnswer | StoredFailure =
        body && isSealedAnswer(body)
          ? (JSON.parse(this.box.open(body.sealed, answerContext(organizationId, mode, key))) as StoredAnswer | StoredFailure)
          : body;
      if ('failed' in answer) {
        res.setHeader('Idempotent-Replayed', 'true');
        throw new ConflictError(
          `The request with this Idempotency-Key was carried out, but it failed afterwards (${answer.failed.status} ${answer.failed.code}) before its answer was complete; look the result up instead of retrying`,
          'idempotency_answer_lost',
        );
      }
      res.status(row.response_status ?? 200);
      res.setHeader('Idempotent-Replayed', 'true');
      return new EnvelopeReply(answer.data ?? {}, answer.message ?? 'Success');
    }

    const claim = { organizationId, mode, key, claimedAt: now, applied: false };
    try {
      const result = await idempotencyScope.run(claim, () => lastValueFrom(next.handle(), { defaultValue: undefined }));
      const stored = result instanceof EnvelopeReply ? { data: result.data, message: result.message } : { data: result ?? {}, message: 'Success' };
      // Only into the request's own claim: one a retry took over keeps the retry's answer.
      await m.query(
        `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5::jsonb
          WHERE organization_id = $1 AND mode = $2 AND key = $3 AND created_at = $6`,
        [
          organizationId,
          mode,
          key,
          res.statusCode,
          JSON.stringify({ sealed: this.box.seal(JSON.stringify(stored), answerContext(organizationId, mode, key)) }),
          now,
        ],
      );
      return result;
    } catch (e) {
      if (claim.applied) await this.keepFailure(req, claim, e);
      else
        await m.query(`DELETE FROM idempotency_keys WHERE organization_id = $1 AND mode = $2 AND key = $3 AND state = 'in_flight' AND created_at = $4`, [
          organizationId,
          mode,
          key,
          now,
        ]);
      throw e;
    }
  }

  /**
   * A request whose changes were committed (its key marked applied) and that failed afterwards: giving
   * the key up would let a retry carry it out a second time, so its failure is stored in place of the
   * answer. If even that cannot be written the key stays applied, which a retry also never runs again.
   */
  private async keepFailure(req: AppRequest, claim: { organizationId: string; mode: string; key: string; claimedAt: Date }, error: unknown): Promise<void> {
    const { status, code } = describeError(error, { method: req.method, path: req.path });
    const failure: StoredFailure = { failed: { status, code } };
    const context = answerContext(claim.organizationId, claim.mode, claim.key);
    try {
      await this.tx.manager.query(
        `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5::jsonb
          WHERE organization_id = $1 AND mode = $2 AND key = $3 AND created_at = $6`,
        [claim.organizationId, claim.mode, claim.key, status, JSON.stringify({ sealed: this.box.seal(JSON.stringify(failure), context) }), claim.claimedAt],
      );
    } catch (e) {
      this.logger.warn({
        msg: 'the failure of an applied request could not be stored; its key stays applied',
        event: 'idempotency_failure_unstored',
        error: (e as Error).message,
      });
    }
  }
}

/** Marks a creating POST as honouring the Idempotency-Key header (and documents it). */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours.',
    }),
  );
}
