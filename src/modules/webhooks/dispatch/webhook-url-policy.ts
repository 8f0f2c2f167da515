import { Inject, Injectable } from '@nestjs/common';
import { WebhooksConfig } from '../webhooks.config';
import { EndpointResolver } from './endpoint-resolver';
import { isIpLiteral, isPublicAddress } from '../domain/address-guard';
import { endpointUrlProblem } from '../domain/endpoint-url';

/**
 * Checks a webhook URL at registration. With the guard on (WEBHOOK_ALLOW_PRIVATE=false, the
 * default in production) the URL must be https and its host must resolve only to public
 * addresses. The dispatcher checks the addresses again at every delivery.
 */
@Injectable()
export class WebhookUrlPolicy {
  constructor(
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(EndpointResolver) private readonly resolver: EndpointResolver,
  ) {}

  get allowPrivate(): boolean {
    return this.config.webhookAllowPrivate;
  }

  async problem(url: string): Promise<string | null> {
    const written = endpointUrlProblem(url, this.allowPrivate);
    if (written || this.allowPrivate) return written;
    const host = new URL(url).hostname;
    if (isIpLiteral(host)) return null;
    try {
      const addresses = await this.resolver.addresses(host);
      if (addresses.length === 0) return 'host does not resolve';
      if (addresses.some((a) => !isPublicAddress(a.address))) return 'must not point at a private, loopback or link-local address';
      return null;
    } catch {
      return 'host does not resolve';
    }
  }
}
