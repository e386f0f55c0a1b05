import { Redacted } from '../../crypto/redacted.ts';
import { PspIntegrationError } from '../connector.ts';
import type { PspHttp } from '../psp-http.ts';
import { PspClient, type PspLogger } from '../kit/json-call.ts';

/**
 * HTTP to HiPay Enterprise: HTTP Basic `<API login>:<API password>`, form-encoded requests,
 * JSON answers (`Accept: application/json`), as HiPay's Gateway API reference and its Node SDK
 * (src/Gateway/HTTP/SimpleHTTPClient.js) do. Built on the service's outbound client
 * (src/psp/psp-http.ts): HiPay's Node SDK is not on the npm registry
 * (`@hipay/hipay-enterprise-sdk-nodejs` answers 404), and it would bring axios and an untyped
 * CommonJS API for five endpoints.
 *
 * Faults become {@link PspIntegrationError}: no answer in time, a network error or a 5xx is
 * `unreachable`; 401/403 `bad_credentials`; a body that is not JSON `bad_response`. Credentials
 * appear in no message.
 */
export interface HipayAnswer {
  status: number;
  body: unknown;
}

export interface HipayClientOptions {
  username: Redacted;
  password: Redacted;
  timeoutMs: number;
  http: PspHttp;
  logger?: PspLogger | undefined;
}

export class HipayClient {
  readonly #authorization: Redacted;
  readonly #client: PspClient;

  constructor(opts: HipayClientOptions) {
    this.#authorization = new Redacted(`Basic ${Buffer.from(`${opts.username.reveal()}:${opts.password.reveal()}`, 'utf8').toString('base64')}`);
    this.#client = new PspClient({ psp: 'hipay', http: opts.http, timeoutMs: opts.timeoutMs, logger: opts.logger });
  }

  toJSON(): string {
    return '[HipayClient]';
  }

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<HipayAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: this.#authorization.reveal() };
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const where = `${method} ${new URL(url).pathname}`;
    const { status, text } = await this.#client.request(where, url, { method, headers, ...(body !== undefined ? { body } : {}) });
    if (status >= 500) throw new PspIntegrationError('hipay', 'unreachable', `${where}: HiPay answered ${status}`);
    if (status === 401 || status === 403) {
      throw new PspIntegrationError('hipay', 'bad_credentials', `${where}: HiPay refused the API credentials (${status}${describe(text)})`);
    }
    try {
      return { status, body: JSON.parse(text) as unknown };
    } catch {
      throw new PspIntegrationError('hipay', 'bad_response', `${where}: HiPay answered ${status} with a body that is not JSON`);
    }
  }
}

/** HiPay's error body `{code, message, description}` as ` code message` for a log line. */
function describe(text: string): string {
  try {
    const e = errorOf(JSON.parse(text));
    return e ? `, ${e.code} ${e.message}` : '';
  } catch {
    return '';
  }
}

/** The error HiPay put in a 4xx body, if it did. */
export function errorOf(body: unknown): { code: number; message: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const code = Number(b.code);
  if (!Number.isInteger(code) || b.code === '' || b.code === undefined) return undefined;
  return { code, message: typeof b.message === 'string' ? b.message : '' };
}
