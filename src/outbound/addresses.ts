import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound call (a PSP, a webhook) may reach. Merchants choose URLs — a
 * webhook, a PSP account's endpoint —, so in production an address inside the service's own
 * network is refused: loopback, private, link-local (cloud metadata at 169.254.169.254),
 * carrier-grade NAT, unique-local, unspecified, multicast, reserved, and the IPv6 forms that
 * carry an IPv4 address (mapped `::ffff:127.0.0.1`, 6to4, Teredo). Only what ipaddr.js classifies
 * as global unicast passes; a NAT64 address (64:ff9b::/96, what DNS64 answers on an IPv6-only
 * host) passes when the IPv4 address inside it would. The operator may allow named hosts
 * (WEBHOOK_ALLOWED_HOSTS, PSP_ENDPOINT_ALLOWLIST); a sandbox deployment allows every address,
 * as developers point it at local fakes (docs/security.md).
 *
 * The check is made on every address a name resolves to, at call time, and the connection is
 * made to the very address checked (./http-request.ts), so a name cannot be re-pointed between
 * the check and the connection (DNS rebinding).
 */

/** Whether an IP address is one a merchant's URL must not reach in production. Not an address at all: true. */
export function isInternalAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip) || !isPlainAddress(ip)) return true;
  const addr = ipaddr.process(ip); // an IPv4-mapped IPv6 address becomes its IPv4 address
  const range = addr.range();
  if (range === 'unicast') return false;
  if (addr.kind() === 'ipv6' && range === 'rfc6052') {
    const parts = (addr as ipaddr.IPv6).parts;
    const v4 = new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 255, parts[7]! >> 8, parts[7]! & 255]);
    return v4.range() !== 'unicast';
  }
  return true;
}

/**
 * ipaddr.js also reads the old inet_aton spellings (`2130706433`, `0x7f.1`, `127.1`). Addresses
 * reach this module from the resolver or from the WHATWG URL parser, which both write IPv4 in
 * four decimal parts; anything else is not an address this module vouches for.
 */
function isPlainAddress(ip: string): boolean {
  return ip.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(ip);
}

/**
 * `Example.COM.` → `example.com`; `[::1]` → `::1`. Give it a URL's `hostname` (the WHATWG
 * parser has already written `2130706433`, `0x7f.1` and `127.1` as `127.0.0.1`).
 */
export function normalizeHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** The host of an absolute URL as {@link normalizeHost} writes it, or undefined when it is not one. */
export function hostOf(url: string): string | undefined {
  try {
    return normalizeHost(new URL(url).hostname);
  } catch {
    return undefined;
  }
}

/**
 * The address rule of one kind of outbound call: the deployment's mode, the hosts its operator
 * allows to resolve to internal addresses, and the variable that lists them (named in refusals).
 */
export class AddressPolicy {
  readonly #allowed: ReadonlySet<string>;

  constructor(
    readonly env: 'sandbox' | 'production',
    allowedHosts: readonly string[] = [],
    /** The configuration variable an operator sets to allow a host, named in every refusal. */
    readonly allowVariable = 'WEBHOOK_ALLOWED_HOSTS',
  ) {
    this.#allowed = new Set(allowedHosts.map(normalizeHost));
  }

  /** Whether this host may resolve to internal addresses: any host in a sandbox, listed hosts in production. */
  allowsInternal(hostname: string): boolean {
    return this.env === 'sandbox' || this.#allowed.has(normalizeHost(hostname));
  }

  /** Why `address` (what `hostname` resolved to) is refused, or undefined when it may be used. */
  refusal(hostname: string, address: string): string | undefined {
    if (!isInternalAddress(address) || this.allowsInternal(hostname)) return undefined;
    const host = normalizeHost(hostname);
    const what = host === normalizeHost(address) ? `${address} is an internal address` : `${host} resolves to ${address}, an internal address`;
    return `refused: ${what} (allow it with ${this.allowVariable})`;
  }
}
