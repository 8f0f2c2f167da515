import { CanActivate, Inject, Injectable, ExecutionContext, NotFoundException } from '@nestjs/common';
import { timingSafeEqual, createHash } from 'node:crypto';
import { AppConfig } from '../../shared/config/app-config';
import { UnauthorizedError } from '../../shared/errors/domain-error';

/**
 * The operator API exists only when ADMIN_API_TOKEN is set (otherwise its routes answer 404 like
 * any unknown path) and is called with the token in X-Admin-Token.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.ADMIN_API_TOKEN;
    if (!expected) throw new NotFoundException();
    const given = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-admin-token'];
    const digest = (v: string) => createHash('sha256').update(v).digest();
    if (typeof given !== 'string' || !timingSafeEqual(digest(given), digest(expected))) {
      throw new UnauthorizedError('Missing or wrong X-Admin-Token', 'invalid_admin_token');
    }
    return true;
  }
}
