import { Redacted } from '../../domain/redacted.ts';
import { PspIntegrationError } from '../connector.ts';
import type { PspClient } from '../kit/json-call.ts';
import { statusFault } from '../kit/status-fault.ts';

/**
 * HTTP to HiPay Enterprise: HTTP Basic `<API login>:<API password>`, JSON answers (`Accept:
 * application/json`), requests form-encoded as HiPay's Node and PHP SDKs send them (their
 * SimpleHTTPClient), where HiPay's API documents declare multipart/form-data: the evidence is in
 * docs/psp/hipay.md#the-documents-and-the-content-type. Built on the service's outbound client
 * (src/psp/psp-http.ts): HiPay's Node SDK is not on the npm registry
 * (`@hipay/hipay-enterprise-sdk-nodejs` answers 404), and it would bring axios and an untyped
 * CommonJS API for five endpoints.
 *
 * Faults become {@link PspIntegrationError}: no answer in time, a network error or a 5xx is
 * `unreachable`, as is a 429; 401/403 `bad_credentials` (src/psp/kit/status-fault.ts); a body that
 * is not JSON `bad_response`. Credentials appear in no message.
 */
export interface HipayAnswer {
  status: number;
  body: unknown;
}

export class HipayClient {
  readonly #authorization: Redacted;
  readonly #client: PspClient;

  constructor(client: PspClient, credentials: Redacted<{ username: string; password: string }>) {
    const { username, password } = credentials.reveal();
    this.#authorization = new Redacted(`Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`);
    this.#client = client;
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
    const fault = statusFault('hipay', where, status, describe(text));
    if (fault) throw fault;
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
