import type { Config } from '../config.ts';
import type { Redacted } from '../domain/redacted.ts';
import { AddressPolicy, hostOf } from '../outbound/addresses.ts';
import { sendRequest } from '../outbound/http-request.ts';

/** What became of an SMS. `accepted` is true only when the gateway took the message. */
export interface SmsResult {
  accepted: boolean;
  /** The gateway's identifier of the message, when it gives one. */
  providerId?: string;
  error?: string;
}

/** Something that sends SMS. `send` never throws. */
export interface SmsGateway {
  /** `http`: SMS_GATEWAY_URL; `sandbox`: sandbox without a gateway (kept, not delivered); `none`: production without a gateway. */
  readonly kind: 'http' | 'sandbox' | 'none';
  send(to: string, text: string): Promise<SmsResult>;
}

export interface HttpSmsGatewayOptions {
  url: string;
  /** Sent as `Authorization: Bearer <key>`; no Authorization header when absent. */
  key: Redacted | undefined;
  sender: string;
  /** Deadline of one request, response body included (ms). Default 10 s. */
  timeoutMs?: number;
}

const MAX_RESPONSE_EXCERPT = 200;
/** A gateway answers with a small JSON document; anything larger is not read. */
const MAX_ANSWER_BYTES = 65_536;

/**
 * An SMS gateway reached over HTTP: `POST <url>` with JSON `{to, text, sender}` and the key as a
 * bearer token. Accepted iff the answer is 2xx; the message id is the JSON answer's `id`, if any.
 * It goes through the service's one outbound client (src/outbound/http-request.ts): redirects
 * are not followed (they count as a refusal: the key goes to the configured address only), one
 * time limit bounds the exchange. The address is the operator's own setting, so its host may
 * resolve to an internal address (a gateway on the operator's network); no other host is called.
 */
export class HttpSmsGateway implements SmsGateway {
  readonly kind = 'http' as const;
  readonly #key: Redacted | undefined;
  private readonly url: string;
  private readonly sender: string;
  private readonly timeoutMs: number;
  readonly #policy: AddressPolicy;

  constructor(opts: HttpSmsGatewayOptions) {
    this.url = opts.url;
    this.#policy = new AddressPolicy('production', [hostOf(opts.url) ?? ''], 'SMS_GATEWAY_URL');
    this.#key = opts.key;
    this.sender = opts.sender;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  async send(to: string, text: string): Promise<SmsResult> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#key) headers.authorization = `Bearer ${this.#key.reveal()}`;
    const a = await sendRequest(this.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ to, text, sender: this.sender }),
      policy: this.#policy,
      timeoutMs: this.timeoutMs,
      read: { whole: MAX_ANSWER_BYTES },
    });
    if (a.statusCode === undefined) {
      return { accepted: false, error: a.timedOut ? `SMS gateway did not answer within ${this.timeoutMs} ms` : `SMS gateway unreachable: ${a.error ?? 'no answer'}` };
    }
    const body = a.body?.toString('utf8') ?? '';
    if (a.statusCode < 200 || a.statusCode > 299) {
      const excerpt = body.replace(/\s+/g, ' ').trim().slice(0, MAX_RESPONSE_EXCERPT);
      return { accepted: false, error: `SMS gateway answered HTTP ${a.statusCode}${excerpt ? `: ${excerpt}` : ''}` };
    }
    return { accepted: true, ...providerIdOf(body) };
  }
}

function providerIdOf(body: string): { providerId?: string } {
  try {
    const id = (JSON.parse(body) as { id?: unknown } | null)?.id;
    if ((typeof id === 'string' && id !== '') || typeof id === 'number') return { providerId: String(id).slice(0, 200) };
  } catch {
    // A 2xx without JSON is still an acceptance.
  }
  return {};
}

let sandboxSeq = 0;

/** Sandbox without a gateway: every SMS is taken and only recorded (the sandbox inbox shows it). */
export class SandboxSmsGateway implements SmsGateway {
  readonly kind = 'sandbox' as const;
  async send(): Promise<SmsResult> {
    return { accepted: true, providerId: `sandbox-${Date.now().toString(36)}-${++sandboxSeq}` };
  }
}

const NO_SMS_GATEWAY_ERROR = 'no SMS_GATEWAY_URL configured';

/** Production without a gateway: nothing is sent. */
export class NoSmsGateway implements SmsGateway {
  readonly kind = 'none' as const;
  async send(): Promise<SmsResult> {
    return { accepted: false, error: NO_SMS_GATEWAY_ERROR };
  }
}

/** The SMS gateway of the configuration. */
export function createSmsGateway(config: Pick<Config, 'env' | 'smsGatewayUrl' | 'smsGatewayKey' | 'smsSender'>, opts: { timeoutMs?: number } = {}): SmsGateway {
  if (config.smsGatewayUrl) {
    return new HttpSmsGateway({ url: config.smsGatewayUrl, key: config.smsGatewayKey, sender: config.smsSender, timeoutMs: opts.timeoutMs });
  }
  return config.env === 'sandbox' ? new SandboxSmsGateway() : new NoSmsGateway();
}
