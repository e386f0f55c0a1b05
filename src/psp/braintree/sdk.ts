import { createRequire } from 'node:module';
import { PspCallError, type PspHttp, type PspMethod } from '../psp-http.ts';

/**
 * The official Braintree Node SDK (`braintree` 3.40.0, CommonJS, no published types): the part of
 * it this connector uses, typed here, and the one hook that sends its requests through our
 * outbound client (docs/psp/braintree.md#outbound-calls).
 */
const require = createRequire(import.meta.url);
/** The SDK's own dependencies, resolved from the SDK (xml2js is its dependency, not ours). */
const sdkRequire = createRequire(require.resolve('braintree'));

/** A Braintree answer as the SDK gives it: `success`, and the object or the errors. */
export interface SdkResult {
  success: boolean;
  message?: string;
  transaction?: unknown;
  customer?: unknown;
  creditCardVerification?: unknown;
  verification?: unknown;
  errors?: { deepErrors(): { code: string; attribute: string; message: string }[] };
}

export interface SdkGateway {
  config: { timeout: number; baseMerchantPath(): string };
  http: SdkHttp;
  customer: { create(attributes: Record<string, unknown>): Promise<SdkResult> };
  creditCard: { find(token: string): Promise<unknown> };
  transaction: {
    sale(attributes: Record<string, unknown>): Promise<SdkResult>;
    find(id: string): Promise<unknown>;
    submitForSettlement(id: string, amount?: string): Promise<SdkResult>;
    void(id: string): Promise<SdkResult>;
    refund(id: string, options: { amount: string; orderId: string }): Promise<SdkResult>;
    /**
     * Without a callback: a stream of the matching transactions (lib/braintree/transaction_gateway.js
     * `search`). With one: the matching ids only (`advanced_search_ids`), as a {@link SdkSearchIds}
     * (lib/braintree/gateway.js `searchResponseHandler`), or an error response.
     */
    search(build: (s: SdkTransactionSearch) => void): AsyncIterable<unknown>;
    search(build: (s: SdkTransactionSearch) => void, callback: (err: unknown, response: SdkSearchIds | SdkResult | null) => void): unknown;
  };
  webhookNotification: { parse(signature: string, payload: string): Promise<{ kind: string; timestamp: Date; subject: Record<string, unknown>; transaction?: unknown }> };
  webhookTesting: { sampleNotification(kind: string, id: string): { bt_signature: string; bt_payload: string } };
  plan: { all(): Promise<unknown> };
}

/** The part of `TransactionSearch` (lib/braintree/transaction_search.js) we use: text, multiple-value and range fields. */
interface SdkTransactionSearch {
  orderId(): { is(value: string): void };
  type(): { is(value: 'sale' | 'credit'): void };
  ids(): { in(values: readonly string[]): void };
  createdAt(): { between(min: Date, max: Date): void };
  submittedForSettlementAt(): { between(min: Date, max: Date): void };
}

/** A search's ids (lib/braintree/search_response.js, `setResponse`): all of them, and the page size Braintree reads them by. */
interface SdkSearchIds {
  ids: string[];
  pageSize: number;
}

/** The SDK's Http instance: `httpRequest` is what every get/post/put/delete of it calls (lib/braintree/http.js). */
interface SdkHttp {
  config: { environment: { ssl: boolean; server: string; port: string | number }; timeout: number };
  checkHttpStatus(status: number): Error | null;
  _headers(): Record<string, string>;
  httpRequest: (method: string, url: string, body: unknown, file?: unknown, host?: string, port?: string | number, headers?: Record<string, string>) => Promise<unknown>;
}

interface Braintree {
  BraintreeGateway: new (config: Record<string, unknown>) => SdkGateway;
  Environment: (new (server: string, port: string, authUrl: string, ssl: boolean, graphQLServer: string, graphQLPort: string) => unknown) & {
    Sandbox: unknown;
    Production: unknown;
  };
  errorTypes: Record<string, string>;
}

/**
 * The SDK and the two parts of it `routeThrough` uses, loaded when a Braintree connector first needs
 * them rather than at every start (a tenth of a start's CPU: docs/deployment.md#start-up-under-load).
 */
interface Sdk {
  braintree: Braintree;
  Util: { convertObjectKeysToUnderscores(o: unknown): unknown; convertNodeToObject(o: unknown): unknown };
  xml2js: { parseStringPromise(xml: string, options: Record<string, unknown>): Promise<unknown> };
}
let loaded: Sdk | undefined;
function sdkParts(): Sdk {
  loaded ??= {
    braintree: require('braintree') as Braintree,
    Util: (sdkRequire('./lib/braintree/util') as { Util: Sdk['Util'] }).Util,
    xml2js: sdkRequire('xml2js') as Sdk['xml2js'],
  };
  return loaded;
}
export const braintree: Braintree = {
  get BraintreeGateway() {
    return sdkParts().braintree.BraintreeGateway;
  },
  get Environment() {
    return sdkParts().braintree.Environment;
  },
  get errorTypes() {
    return sdkParts().braintree.errorTypes;
  },
};

/** The SDK's error for a failed request (`UnexpectedError`), carrying our {@link PspCallError} as its cause. */
export class SdkCallError extends Error {
  override readonly name = 'unexpectedError';
  readonly type = braintree.errorTypes.unexpectedError;
  constructor(readonly call: PspCallError) {
    super(call.message);
  }
}

/**
 * Points the gateway's Http at our client. The SDK builds every request in one method,
 * `Http.httpRequest(method, path, body, …)`, then calls node's http/https itself with no way to
 * pass a client. Replacing that method on this gateway's instance (not the prototype) is the
 * narrowest hook: the SDK still builds the path and the headers (`_headers()`: Basic auth,
 * `X-ApiVersion`, `Accept: application/xml`, JSON body with underscored keys) and reads the answer
 * as it does (`checkHttpStatus`, then xml2js with the same options and `Util.convertNodeToObject`);
 * only the transport is ours (address checked, no redirect followed, time limit). The body is
 * serialised exactly as http.js does; multipart uploads (documents for disputes) are not used
 * and refused. We do not ask for gzip: our client reads text.
 */
export function routeThrough(gateway: SdkGateway, http: PspHttp, timeoutMs: number): void {
  const sdk = gateway.http;
  const env = sdk.config.environment;
  const origin = `${env.ssl ? 'https' : 'http'}://${env.server.includes(':') ? `[${env.server}]` : env.server}:${env.port}`;
  sdk.httpRequest = async (method, url, body, file, host, port, headers) => {
    if (file !== undefined && file !== null) throw new SdkCallError(new PspCallError('refused', 'refused: file uploads are not sent to Braintree'));
    if (host !== undefined || port !== undefined) throw new SdkCallError(new PspCallError('refused', 'refused: the SDK asked for another host'));
    const all: Record<string, string> = { ...sdk._headers(), ...headers };
    delete all['Accept-Encoding'];
    let text: string | undefined;
    if (body) text = JSON.stringify(/application\/json/.test(all.Accept ?? '') ? body : sdkParts().Util.convertObjectKeysToUnderscores(body));
    let answer;
    try {
      answer = await http.request(`${origin}${url}`, { method: method as PspMethod, headers: all, ...(text !== undefined ? { body: text } : {}), timeoutMs });
    } catch (e) {
      if (e instanceof PspCallError) throw new SdkCallError(e);
      throw e;
    }
    const error = sdk.checkHttpStatus(answer.status);
    if (error) throw error;
    if (answer.text.length === 0) return undefined;
    if (/^\s+$/.test(answer.text)) return {};
    const contentType = String(answer.headers['content-type'] ?? '');
    if (contentType.includes('application/xml')) {
      return sdkParts().Util.convertNodeToObject(await sdkParts().xml2js.parseStringPromise(answer.text, { attrkey: '@', charkey: '#', explicitArray: false }));
    }
    if (contentType.includes('application/json')) return JSON.parse(answer.text) as unknown;
    return answer.text;
  };
}
