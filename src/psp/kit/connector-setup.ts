import { inspect } from 'node:util';
import { Redacted } from '../../domain/redacted.ts';
import type { Clock } from '../../domain/clock.ts';
import { PspIntegrationError, type PspConnector } from '../connector.ts';
import type { ConnectorContext, ConnectorDefinition, PspAccountConfig, PspEnvironment } from '../definition.ts';
import type { PspHttp } from '../psp-http.ts';
import { PspClient, type PspLogger } from './json-call.ts';
import type { PspOperations } from './operations.ts';

type CredentialsCheck = Awaited<ReturnType<PspConnector['verifyCredentials']>>;

export interface ConnectorSetupOptions<C> {
  /** The connector's name: it starts every configuration error, fault and log line. */
  psp: string;
  baseUrl: string;
  timeoutMs: number;
  http: PspHttp;
  logger?: PspLogger | undefined;
  requestIdHeader?: string;
  /** The account's secrets, held from here on only as {@link Redacted}. */
  credentials: C;
}

export interface ConnectorSetup<C> {
  /** The checked base URL without its trailing slashes, ready for `${baseUrl}/path`. */
  baseUrl: string;
  client: PspClient;
  credentials: Redacted<C>;
}

/**
 * What every HTTP connector's constructor does first, so that a bad configuration stops the boot
 * with a message naming the connector: the base URL is an absolute http(s) URL, the time limit is
 * positive, the credentials are wrapped in {@link Redacted}, and the connector's {@link PspClient}
 * is built. The connector checks its own credential formats itself.
 */
export function connectorSetup<C>(o: ConnectorSetupOptions<C>): ConnectorSetup<C> {
  checkBaseUrl(o.psp, o.baseUrl);
  if (!Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0) throw new TypeError(`${o.psp}: timeoutMs must be positive`);
  return {
    baseUrl: trimSlashes(o.baseUrl),
    client: new PspClient({ psp: o.psp, http: o.http, timeoutMs: o.timeoutMs, logger: o.logger, ...(o.requestIdHeader ? { requestIdHeader: o.requestIdHeader } : {}) }),
    credentials: new Redacted(o.credentials),
  };
}

/** The base URL parsed; a TypeError naming the connector unless it is an absolute http(s) URL. */
export function checkBaseUrl(psp: string, baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`${psp}: baseUrl must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`${psp}: baseUrl must be an http(s) URL`);
  return url;
}

export function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * What a connector shows of itself, the same through `JSON.stringify`, `String()` and
 * `util.inspect`: its name, whether it is a test system, and what tells instances apart (an
 * account id, a gateway) — never a credential, whatever fields the subclass holds. And the
 * connector's faults, named after it.
 */
export abstract class KitConnector {
  abstract readonly name: string;
  abstract readonly sandbox: boolean;
  /** How a log line shows this instance, e.g. `LyraConnector(test)`. */
  protected abstract get shownAs(): string;
  /** Non-secret fields added to `toJSON` (an account id). */
  protected get shownFields(): Record<string, unknown> {
    return {};
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, sandbox: this.sandbox, ...this.shownFields };
  }
  toString(): string {
    return this.shownAs;
  }
  [inspect.custom](): string {
    return this.toString();
  }

  protected fault(code: PspIntegrationError['code'], message: string): PspIntegrationError {
    return new PspIntegrationError(this.name, code, message);
  }

  /**
   * `verifyCredentials` by a call that changes nothing: ok once `probe` is through, unless it
   * answers an `ok: false` it read in the PSP's answer; the PSP's refusal of the credentials (a `bad_credentials`
   * fault) is `{ ok: false, message: refused }`, and any other error is thrown.
   */
  protected async probeCredentials(probe: () => Promise<CredentialsCheck | void>, refused: string): Promise<CredentialsCheck> {
    try {
      return (await probe()) ?? { ok: true };
    } catch (e) {
      if (e instanceof PspIntegrationError && e.code === 'bad_credentials') return { ok: false, message: refused };
      throw e;
    }
  }
}

/**
 * What a connector is given by its definition from the account and the context (built by
 * {@link kitOptions}): the same for one that builds its own requests ({@link HttpKitConnector})
 * and for one that goes through its PSP's SDK (Stripe, Mercado Pago, Braintree), so no
 * connector's options repeat these fields.
 */
export interface KitConnectorOptions {
  /** The PSP's base URL (or a PSP account's endpoint_url): the connector's paths are under it. */
  baseUrl: string;
  sandbox: boolean;
  clock: Clock;
  timeoutMs: number;
  /** The service's outbound client, scoped to this account's PSP (src/psp/psp-http.ts). */
  http: PspHttp;
  /** The operation log of this PSP account (src/psp/kit/operations.ts). */
  operations: PspOperations;
  logger?: PspLogger | undefined;
}

/** What a connector built on {@link HttpKitConnector} is given by its definition. */
export interface HttpKitConnectorOptions<C> extends KitConnectorOptions {
  credentials: C;
}

/** A definition's `baseUrl` where its PSP publishes one base URL per environment (the account's `endpoint_url` aside). */
export function baseUrlPer(urls: Readonly<Record<PspEnvironment, string>>): ConnectorDefinition['baseUrl'] {
  return (environment) => urls[environment];
}

/** A TypeError at boot naming the first of the `names` the account's credentials lack (`<psp>: credential <name> is missing`). */
export function requireCredentials(psp: string, credentials: PspAccountConfig['credentials'], names: readonly string[]): void {
  for (const f of names) if (!credentials[f]) throw new TypeError(`${psp}: credential ${f} is missing`);
}

/** What a definition gives its connector from the account and the context, besides its credentials. */
export function kitOptions(account: PspAccountConfig, context: ConnectorContext): KitConnectorOptions {
  return {
    baseUrl: account.baseUrl,
    sandbox: account.environment === 'test',
    clock: context.clock,
    timeoutMs: context.timeoutMs,
    http: context.http,
    logger: context.logger,
    operations: context.operations,
  };
}

/**
 * The base of a connector that builds its own requests from one set of credentials: the
 * {@link connectorSetup} preamble done once, and what each of them keeps (the credentials only as
 * {@link Redacted}, the checked base URL, the client, the clock and the operation log) held by
 * the base instead of repeated in every connector's fields. Its name is the `psp` it is built with.
 */
export abstract class HttpKitConnector<C> extends KitConnector {
  readonly name: string;
  readonly sandbox: boolean;
  protected readonly credentials: Redacted<C>;
  /** Without its trailing slashes, ready for `${baseUrl}/path`. */
  protected readonly baseUrl: string;
  protected readonly clock: Clock;
  protected readonly client: PspClient;
  protected readonly operations: PspOperations;
  readonly #shownBy: 'environment' | 'baseUrl';

  /**
   * `shownBy`: what tells its instances apart in a log line, the environment (`OgoneConnector(test)`)
   * or the base URL (`CentralpayConnector(https://…)`, with `baseUrl` in `toJSON`).
   */
  constructor(psp: string, o: HttpKitConnectorOptions<C>, shownBy: 'environment' | 'baseUrl' = 'environment') {
    super();
    this.name = psp;
    this.#shownBy = shownBy;
    const setup = connectorSetup({ psp, baseUrl: o.baseUrl, timeoutMs: o.timeoutMs, http: o.http, logger: o.logger, credentials: { ...o.credentials } });
    this.sandbox = o.sandbox;
    this.credentials = setup.credentials;
    this.baseUrl = setup.baseUrl;
    this.clock = o.clock;
    this.client = setup.client;
    this.operations = o.operations;
  }

  /** `OgoneConnector(test)`: the connector's name capitalised, and whether it is a test system (or its base URL). */
  protected get shownAs(): string {
    return `${this.name[0]!.toUpperCase()}${this.name.slice(1)}Connector(${this.#shownBy === 'baseUrl' ? this.baseUrl : this.sandbox ? 'test' : 'live'})`;
  }
  protected override get shownFields(): Record<string, unknown> {
    return this.#shownBy === 'baseUrl' ? { baseUrl: this.baseUrl } : {};
  }
}
