import { Inject, Injectable } from '@nestjs/common';
import { type LookupAddress, type LookupAllOptions, type LookupOneOptions, promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from '../domain/address-guard';
import { WebhooksConfig } from '../webhooks.config';

/** How long one query to one server waits before it is sent again, and how often (c-ares doubles the wait each time). */
const QUERY_TIMEOUT_MS = 1500;
const QUERY_TRIES = 2;

/** A host that resolves to an address the guard refuses (private, loopback, link-local...). */
export class RefusedAddressError extends Error {}

/**
 * Endpoint hosts resolved through DNS itself (c-ares, `dns.Resolver`), asking WEBHOOK_DNS_SERVERS or the
 * system's resolvers: each query runs on the event loop with its own timeout, never on libuv's small thread
 * pool as `dns.lookup` (getaddrinfo) does, where one merchant's host with a slow or silent name server would
 * hold a thread for the resolver's whole timeout, and four such lookups would stall every other merchant's
 * deliveries and the process's file work. Used with the address guard (WEBHOOK_ALLOW_PRIVATE false); without
 * it the operator's own names (hosts files, service discovery) are looked up as the system does.
 */
@Injectable()
export class EndpointResolver {
  private readonly resolver: InstanceType<typeof dns.Resolver>;

  constructor(@Inject(WebhooksConfig) config: WebhooksConfig) {
    this.resolver = new dns.Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
    const servers = config.dnsServers;
    if (servers.length) {
      try {
        this.resolver.setServers(servers);
      } catch (e) {
        throw new Error(`WEBHOOK_DNS_SERVERS: ${(e as Error).message} (give IP addresses, each with an optional port)`);
      }
    }
  }

  /** Every address of `host` (A and AAAA); rejects with the DNS error when it has none. */
  async addresses(host: string): Promise<LookupAddress[]> {
    // `localhost` and its subdomains are loopback whatever DNS says (RFC 6761), as the hosts file has it.
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) {
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    }
    const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(host), this.resolver.resolve6(host)]);
    const found: LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (!found.length) throw v4.status === 'rejected' ? v4.reason : new Error(`${host} has no address`);
    return found;
  }

  /**
   * The lookup a delivery's connection makes: the host's addresses, refusing private answers. The connection
   * goes to the address checked here, so a host cannot pass a check and then resolve elsewhere for the request.
   */
  readonly guardedLookup = ((hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (...args: unknown[]) => void) => {
    this.addresses(hostname).then(
      (addresses) => {
        const refused = addresses.find((a) => !isPublicAddress(a.address));
        // Not named: the merchant reads this error in the attempts list, and the address would map the service's own network.
        if (refused) return callback(new RefusedAddressError(`${hostname} resolves to a private, loopback or link-local address`));
        const family = (options as LookupOneOptions).family;
        const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
        if (!usable.length) return callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }));
        if ((options as LookupAllOptions).all) return callback(null, usable);
        return callback(null, usable[0].address, usable[0].family);
      },
      (error: unknown) => callback(error),
    );
  }) as unknown as LookupFunction;
}
