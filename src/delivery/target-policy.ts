import { BlockList, isIP } from 'node:net';

/**
 * Which addresses deliveries may be sent to. A merchant chooses the URLs, so in production an
 * address inside the service's own network (loopback, private, link-local — cloud metadata at
 * 169.254.169.254 —, carrier-grade NAT, multicast, reserved) is refused unless the operator lists
 * its host in WEBHOOK_ALLOWED_HOSTS. The sandbox allows them: developers point it at localhost.
 *
 * The check is made on every address a name resolves to, at send time, and the connection is
 * made to the very address checked (see http-sender.ts), so a name cannot be re-pointed between
 * the check and the connection (DNS rebinding).
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) or NAT64 (`64:ff9b::`) address. */
function embeddedIPv4(v6: string): string | undefined {
  let host: string;
  try {
    host = new URL(`http://[${v6}]/`).hostname.slice(1, -1); // normalised, e.g. ::ffff:7f00:1
  } catch {
    return undefined;
  }
  const m = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!m) return undefined;
  const hi = parseInt(m[1]!, 16);
  const lo = parseInt(m[2]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Whether an IP address is one a merchant URL must not reach in production. */
export function isInternalAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return BLOCKED.check(ip, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIPv4(ip);
    return v4 !== undefined ? BLOCKED.check(v4, 'ipv4') : BLOCKED.check(ip, 'ipv6');
  }
  return true; // not an address at all: refuse
}

/** `Example.COM.` → `example.com`; `[::1]` → `::1`. */
export function normalizeHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

export class TargetPolicy {
  readonly #allowed: ReadonlySet<string>;

  constructor(
    readonly env: 'sandbox' | 'production',
    allowedHosts: readonly string[] = [],
  ) {
    this.#allowed = new Set(allowedHosts.map(normalizeHost));
  }

  /** Whether this host may resolve to internal addresses. */
  allowsInternal(hostname: string): boolean {
    return this.env === 'sandbox' || this.#allowed.has(normalizeHost(hostname));
  }

  /** Why `address` (what `hostname` resolved to) is refused, or undefined when it may be used. */
  refusal(hostname: string, address: string): string | undefined {
    if (!isInternalAddress(address) || this.allowsInternal(hostname)) return undefined;
    const host = normalizeHost(hostname);
    const what = host === address ? `${address} is an internal address` : `${host} resolves to ${address}, an internal address`;
    return `refused: ${what} (allow it with WEBHOOK_ALLOWED_HOSTS)`;
  }
}
