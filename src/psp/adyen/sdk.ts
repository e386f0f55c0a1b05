import { createRequire } from 'node:module';
import type * as ClientModule from '@adyen/api-library/lib/src/client.js';
import { EnvironmentEnum } from '@adyen/api-library/lib/src/config.js';
import type * as ClientInterfaceModule from '@adyen/api-library/lib/src/httpClient/clientInterface.js';
import { ModificationsApi } from '@adyen/api-library/lib/src/services/checkout/modificationsApi.js';
import { PaymentsApi } from '@adyen/api-library/lib/src/services/checkout/paymentsApi.js';
import { RecurringApi } from '@adyen/api-library/lib/src/services/checkout/recurringApi.js';
import type { IRequest } from '@adyen/api-library/lib/src/typings/requestOptions.js';
import type { PspMethod } from '../psp-http.ts';

/**
 * Adyen's official Node SDK (`@adyen/api-library`) carrying the connector's Checkout API calls
 * over the service's outbound client (docs/psp/adyen.md#sdk). The SDK builds each request (URL,
 * query, body through its models) and reads each answer into its models; the HTTP client it is
 * given is ours, so its own client (which follows a 308) is never built.
 *
 * The modules are imported one by one: the package's index loads every API's models (about a
 * second at start-up) for three services used here. `Client` is the `default` of a CommonJS
 * module, which Node's ESM loader and Vitest's do not hand over alike: it is required.
 */
const { default: Client } = createRequire(import.meta.url)('@adyen/api-library/lib/src/client.js') as typeof ClientModule.default;

/**
 * The origin the SDK's Checkout services write in the TEST environment (the one its `Config` is
 * given here): the services' base is `https://checkout-test.adyen.com/v72`, each call's URL that
 * plus its path. Only the path after this origin is kept; the account's base URL goes before it.
 */
const SDK_CHECKOUT_ORIGIN = 'https://checkout-test.adyen.com/';

/** The Checkout services the connector calls, built on one client. */
export interface AdyenCheckout {
  payments: PaymentsApi;
  modifications: ModificationsApi;
  recurring: RecurringApi;
}

/** How the SDK's requests are sent: one call of the connector's outbound client. */
export type AdyenSend = (method: PspMethod, url: string, body: string | undefined, idempotencyKey: string | undefined) => Promise<{ status: number; text: string }>;

/** An answer outside 2xx: the SDK's call is rejected with it, for the connector to read its status and body itself. */
export class AdyenAnswer extends Error {
  override readonly name = 'AdyenAnswer';
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(`Adyen answered HTTP ${status}`);
  }
}

const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] satisfies PspMethod[];

/**
 * The account's URL for an endpoint the SDK wrote: its path (`/v72/payments…`) after `baseUrl`,
 * and the query the SDK gives in `params`. An endpoint elsewhere than the SDK's Checkout origin is
 * refused: the SDK wrote a URL this adapter does not know.
 */
function accountUrl(baseUrl: string, endpoint: string, params: IRequest.Options['params']): string {
  if (!endpoint.startsWith(SDK_CHECKOUT_ORIGIN)) throw new TypeError('adyen: the SDK wrote an endpoint outside its Checkout API');
  // The services write `params` as an object of strings (e.g. services/checkout/recurringApi.js, getTokensForStoredPaymentDetails).
  const query = params === undefined ? '' : new URLSearchParams(params as Record<string, string>).toString();
  return `${baseUrl}/${endpoint.slice(SDK_CHECKOUT_ORIGIN.length)}${query ? `?${query}` : ''}`;
}

/**
 * The SDK's Checkout services, sending through `send` to `baseUrl`. A 2xx answer's text goes back
 * to the SDK, which parses it into its model; any other answer rejects the call with
 * {@link AdyenAnswer}. The SDK's `Config` holds no credential: the API key is the sender's to add.
 */
export function adyenCheckout(baseUrl: string, send: AdyenSend): AdyenCheckout {
  const http: ClientInterfaceModule.default = {
    async request(endpoint, json, _config, _isApiKeyRequired, options = {}) {
      const method = (options.method ?? 'GET').toUpperCase();
      if (!METHODS.includes(method)) throw new TypeError(`adyen: the SDK asked for method ${method}`);
      const body = typeof json === 'string' ? json : json.toString('utf8');
      const a = await send(method as PspMethod, accountUrl(baseUrl, endpoint, options.params), body.length > 0 ? body : undefined, options.idempotencyKey);
      if (a.status < 200 || a.status >= 300) throw new AdyenAnswer(a.status, a.text);
      return a.text;
    },
  };
  const client = new Client({ environment: EnvironmentEnum.TEST }, http);
  return { payments: new PaymentsApi(client), modifications: new ModificationsApi(client), recurring: new RecurringApi(client) };
}
