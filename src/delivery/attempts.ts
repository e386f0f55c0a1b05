import type { WebhookEndpoint } from './webhook-endpoint-repository.ts';
import { mailNotification, postRequest, type Sent } from './attempt-channels.ts';
import { AttemptRecorder } from './attempt-recorder.ts';
import { prepareRequest, webhookRequest, type AttemptRequest } from './attempt-request.ts';
import { cancelClaimed, type ClaimedDelivery } from './delivery-queue-repository.ts';
import { toDeliveryUid } from './delivery.ts';
import type { WebhookMessage } from './webhook-payload.ts';
import type { DeliveryWorkerDeps } from './worker-deps.ts';

/** An attempt whose request has ended: the recording of its outcome, under way. Never rejects. */
export interface Sending {
  recorded: Promise<void>;
}

/**
 * One attempt of a claimed delivery, from its request to its record: the request built
 * (attempt-request.ts), sent on its channel (attempt-channels.ts), its outcome recorded
 * (attempt-recorder.ts). The worker decides which deliveries and when; this, how each is sent.
 */
export class Attempts {
  readonly #deps: DeliveryWorkerDeps;
  readonly #recorder: AttemptRecorder;
  readonly #timeoutMs: number;
  readonly #wallNow: () => Date;
  readonly #signal: AbortSignal;

  constructor(deps: DeliveryWorkerDeps, opts: { timeoutMs: number; random: () => number; wallNow: () => Date; signal: AbortSignal }) {
    this.#deps = deps;
    this.#recorder = new AttemptRecorder(deps, opts.random, opts.wallNow);
    this.#timeoutMs = opts.timeoutMs;
    this.#wallNow = opts.wallNow;
    this.#signal = opts.signal;
  }

  /**
   * One attempt of a claimed delivery: resolves when its request has ended, with the recording of
   * its outcome under way. Never rejects.
   */
  async attempt(d: ClaimedDelivery, endpoints?: Map<string, WebhookEndpoint>): Promise<Sending> {
    const { log } = this.#deps;
    const context = { delivery_id: toDeliveryUid(d.id), account_id: d.accountId, kind: d.kind, event_id: d.eventId };
    try {
      const startedAt = this.#deps.clock.now();
      const request = await prepareRequest(this.#deps, d, endpoints, this.#wallNow);
      if ('cancel' in request) {
        await cancelClaimed(this.#deps.db, d, request.cancel, this.#deps.clock.now());
        this.#deps.metrics?.observeDeliveryAttempt(d.kind, 'cancelled', 0);
        log.info({ ...context, reason: request.cancel }, 'delivery cancelled');
        return { recorded: Promise.resolve() };
      }
      const sent = request.url.startsWith('mailto:')
        ? await mailNotification(
            request.url,
            request.body,
            this.#deps.mailer,
            this.#timeoutMs,
            d.kind === 'refusal' ? 'Error notification' : d.kind === 'purchase_end' ? 'Purchase end notification' : 'Payment notification',
          )
        : await this.#post(request);
      return { recorded: this.#recorder.record(d, request.url, startedAt, sent, context) };
    } catch (err) {
      // Database trouble: the lease runs out and the delivery is taken again.
      log.error({ ...context, err }, 'delivery attempt could not be completed');
      return { recorded: Promise.resolve() };
    }
  }

  /**
   * Sends one webhook now, outside the delivery tables (the back office's test event): the same
   * body, signature, timeout and target policy as every delivery, and nothing recorded or retried.
   */
  async sendNow(endpoint: WebhookEndpoint, msgId: string, message: WebhookMessage): Promise<Sent> {
    return this.#post(webhookRequest(endpoint, msgId, message, this.#wallNow));
  }

  #post(r: AttemptRequest): Promise<Sent> {
    return postRequest(r, { timeoutMs: this.#timeoutMs, policy: this.#deps.policy, signal: this.#signal });
  }
}
