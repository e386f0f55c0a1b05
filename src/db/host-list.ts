/**
 * A database URL naming several hosts, as libpq writes it: `postgres://user@h1:6432,h2:6432/chipin`.
 * The reference topology's two PgBouncers (and two HAProxies) are reached this way
 * (docs/deployment.md#two-of-each-in-front): each new connection goes to the first host not
 * marked down; a host whose connection attempt failed is marked down for {@link DOWN_MS}, and the
 * attempt is made once more on the next host, so that a pooler or proxy lost costs the requests
 * that were using its connections, not the next ones. A URL with one host is used as it is.
 */

/** How long a host whose connection failed is passed over before it is tried again. */
export const DOWN_MS = 5_000;

const AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i;

/** The URL once per host, in the order written; one element for a URL with one host. */
export function splitHosts(url: string): string[] {
  const m = AUTHORITY.exec(url);
  if (!m || !m[3]!.includes(',')) return [url];
  const [, scheme, userinfo = '', hosts, rest] = m;
  return hosts!.split(',').map((host) => `${scheme}${userinfo}${host.trim()}${rest}`);
}

/** Which host a new connection goes to, and which ones failed lately. */
export class HostList {
  readonly urls: readonly string[];
  readonly #downUntil: number[];
  constructor(
    url: string,
    private readonly now: () => number = Date.now,
  ) {
    this.urls = splitHosts(url);
    this.#downUntil = this.urls.map(() => 0);
  }

  /** The first host not marked down; when all are, the one whose mark ends first. */
  pick(): number {
    const t = this.now();
    const up = this.#downUntil.findIndex((until) => until <= t);
    if (up !== -1) return up;
    return this.#downUntil.indexOf(Math.min(...this.#downUntil));
  }

  markDown(i: number): void {
    this.#downUntil[i] = this.now() + DOWN_MS;
  }

  /** Whether another host than `i` is not marked down (worth a second attempt). */
  anotherUp(i: number): boolean {
    const t = this.now();
    return this.#downUntil.some((until, j) => j !== i && until <= t);
  }
}
