/**
 * Magento 2 (pledgcorporate/ecard-magento, test/compat/README.md): the IPN controller that
 * receives paymentNotificationUrl, re-stated.
 */
import { json, phpString, sha256Upper, type Handled, type HandlerAnswer } from './shop.ts';

/** Controller/Checkout/Ipn.php#L28-L49 */
export const STATUS_PENDING = [
  'waiting',
  'pending',
  'authorized',
  'pending-capture',
  'in-review',
  'retrieval-request',
  'fraud-notification',
  'chargeback-initiated',
  'solved',
  'reversed',
];
export const STATUS_CANCELLED = ['failed', 'voided', 'refunded', 'pending-capture', 'blocked'];
export const STATUS_COMPLETED = ['completed'];

/** Ipn.php#L133-L150: the six fields in this order joined with the secret. */
export function backSignature(params: Record<string, unknown>, secret: string): string {
  return sha256Upper(['created_at', 'error', 'id', 'reference', 'sandbox', 'status'].map((p) => `${p}=${phpString(params[p])}`).join(secret));
}

export class MagentoShop {
  /** Magento order states: pending_payment until invoiced (processing) or cancelled (canceled). */
  state: 'pending_payment' | 'processing' | 'canceled' = 'pending_payment';
  readonly handled: Handled[] = [];
  constructor(
    readonly incrementId: string,
    readonly secret: string,
  ) {}

  /** Ipn::execute, L105-L180: any exception answers 500 {"success": false}. */
  handle(path: string, body: string): HandlerAnswer {
    const before = this.state;
    let answer: HandlerAnswer;
    try {
      this.#execute(JSON.parse(body) as Record<string, unknown>);
      answer = json(200, { success: true, message: '' });
    } catch (e) {
      answer = json(500, { success: false, message: (e as Error).message });
    }
    this.handled.push({ path, body, answer, effect: this.state === before ? 'unchanged' : this.state === 'processing' ? 'paid' : 'cancelled' });
    return answer;
  }

  #execute(params: Record<string, unknown>): void {
    if (params.signature === undefined) throw new Error('unsigned transfer mode: not replayed');
    if (Object.keys(params).length === 1) throw new Error('signed transfer mode: not replayed');
    if (params.signature !== backSignature(params, this.secret)) throw new Error('Invalid signature');
    this.#handleBackMode(params);
  }

  /** handleBackMode, L223-L267, with getOrder (L320-L336) and invoiceOrder's guard (L189-L193). */
  #handleBackMode(params: Record<string, unknown>): void {
    if (String(params.reference).replace('order_', '') !== this.incrementId) throw new Error('Could not retrieve order');
    const status = String(params.status ?? '');
    if (STATUS_COMPLETED.includes(status)) {
      if (this.state !== 'pending_payment') throw new Error(`Order with state ${this.state} cannot be processed and invoiced`);
      this.state = 'processing';
      return;
    }
    if (STATUS_CANCELLED.includes(status)) {
      if (this.state !== 'pending_payment') throw new Error(`Order ${this.incrementId} cannot be canceled`);
      this.state = 'canceled';
      return;
    }
    // STATUS_PENDING: a comment on the order; anything else: logged.
  }
}
