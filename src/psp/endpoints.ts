import { AddressPolicy, normalizeHost } from '../outbound/addresses.ts';
import type { FieldProblem } from './credentials.ts';
import type { ConnectorDefinition, PspEnvironment } from './definition.ts';
import { PspHttp } from './psp-http.ts';

/** The configuration variable that lets an operator add hosts (named in refusals). */
const ALLOWLIST_VARIABLE = 'PSP_ENDPOINT_ALLOWLIST';

/** Whether `host` (normalised) matches a published host pattern: exact, or `*suffix` for the start of the first label. */
export function matchesHostPattern(pattern: string, host: string): boolean {
  if (!pattern.startsWith('*')) return host === pattern;
  const suffix = pattern.slice(1);
  const start = host.slice(0, host.length - suffix.length);
  return host.endsWith(suffix) && /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(start);
}

/**
 * Where PSP calls may go (docs/security.md, "Where card data may go"). Card numbers,
 * credentials and every other PSP call go only to the PSP's own published hosts for the PSP
 * account's environment (each connector's `publishedHosts`, citing its source), over https. A
 * PSP account's `endpoint_url` may name another of them (a Lyra brand, an Adyen live prefix);
 * any other host is refused in production — on saving, from the API, the back office and the
 * CLI alike, `?verify=false` or not, and again at every call, so an account saved before this
 * rule, or written to the database by other means, is not called either. The operator (never a
 * merchant) may list further hosts in PSP_ENDPOINT_ALLOWLIST (a PSP's new host, an egress proxy
 * of theirs): those may also be plain http and resolve to internal addresses. A sandbox
 * deployment calls what its accounts name (local fakes on 127.0.0.1 included).
 */
export class PspEndpoints {
  readonly #allowed: ReadonlySet<string>;
  /** The address rule of every PSP call (src/outbound/addresses.ts). */
  readonly policy: AddressPolicy;

  constructor(
    readonly deployment: 'sandbox' | 'production',
    allowlist: readonly string[] = [],
  ) {
    this.#allowed = new Set(allowlist.map(normalizeHost));
    this.policy = new AddressPolicy(deployment, allowlist, ALLOWLIST_VARIABLE);
  }

  /** Why the connector of `def` may not call `host` for an account of `environment`, or undefined. */
  hostRefusal(def: ConnectorDefinition, environment: PspEnvironment, host: string): string | undefined {
    if (this.deployment === 'sandbox') return undefined;
    const h = normalizeHost(host);
    if (this.#allowed.has(h) || def.publishedHosts[environment].some((p) => matchesHostPattern(p, h))) return undefined;
    return `refused: ${h} is not one of ${def.name}'s hosts for ${environment} (allow it with ${ALLOWLIST_VARIABLE})`;
  }

  /**
   * What is wrong with an `endpoint_url` for an account of this connector and environment
   * (naming the field), or undefined. Checked on saving and, in production, before every use.
   */
  endpointProblem(def: ConnectorDefinition, environment: PspEnvironment, raw: string): FieldProblem | undefined {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { field: 'endpoint_url', message: 'must be an absolute URL' };
    }
    if (url.username || url.password) return { field: 'endpoint_url', message: 'must not carry a user name or password' };
    if (url.search || url.hash) return { field: 'endpoint_url', message: 'must not have a query or fragment' };
    // The WHATWG parser has written every IPv4 spelling (2130706433, 0x7f.1, 127.1) as a.b.c.d.
    const host = normalizeHost(url.hostname);
    if (this.deployment === 'sandbox') {
      if (url.protocol === 'https:') return undefined;
      const local = host === '127.0.0.1' || host === 'localhost' || host === '::1';
      if (url.protocol === 'http:' && local) return undefined;
      return { field: 'endpoint_url', message: 'must be an https:// URL (or http://127.0.0.1 for a local fake)' };
    }
    if (this.#allowed.has(host) && (url.protocol === 'https:' || url.protocol === 'http:')) return undefined;
    const published = def.publishedHosts[environment];
    if (url.protocol === 'https:' && url.port === '' && published.some((p) => matchesHostPattern(p, host))) return undefined;
    return {
      field: 'endpoint_url',
      message:
        `must be an https:// URL on one of ${def.name}'s own hosts for ${environment} in production (${published.join(', ') || 'none'}); ` +
        `another host needs the operator's ${ALLOWLIST_VARIABLE}`,
    };
  }

  /** The outbound client of one PSP account: its PSP's hosts only, in production. */
  httpFor(def: ConnectorDefinition, environment: PspEnvironment): PspHttp {
    return new PspHttp(this.policy, (host) => this.hostRefusal(def, environment, host));
  }
}
