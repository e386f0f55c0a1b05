/**
 * PrestaShop 1.7 (pledgcorporate/ecard-prestashop1.7, test/compat/README.md): the notification
 * front controller that receives paymentNotificationUrl, re-stated for back mode.
 */
import { sha256Upper, type Handled, type HandlerAnswer } from './shop.ts';

const forbidden = (body: string): HandlerAnswer => ({ status: 403, body });

/** PHP's `isset($data->{$key})`: present and not null. */
const isset = (o: Record<string, unknown>, k: string) => o[k] !== undefined && o[k] !== null;

export class PrestaShopShop {
  /** The order, once the shopper's validation or a notification created it: PS_OS_PAYMENT when paid. */
  state: 'none' | 'waiting_notification' | 'paid' = 'none';
  /** additional_data.charge_id kept as the order payment's transaction_id. */
  transactionId: unknown;
  readonly handled: Handled[] = [];
  constructor(
    readonly cartId: number,
    readonly totalCents: number,
    readonly secret: string,
  ) {}

  /** controllers/front/notification.php#L8-L151 (back-mode branch L104-L151), validOrder L161-L261. */
  handle(path: string, body: string): HandlerAnswer {
    const before = this.state;
    const answer = this.#decide(new URL(path, 'http://shop.invalid').searchParams, body);
    this.handled.push({ path, body, answer, effect: this.state === before ? 'unchanged' : this.state });
    return answer;
  }

  #decide(query: URLSearchParams, raw: string): HandlerAnswer {
    if (!query.has('pledgPayment')) return forbidden('pledgPayment param is missing');
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return forbidden('Pledg Payment Notification JSON Decode Error');
    }
    const keys = Object.keys(data);
    if (keys.length === 1) return forbidden('transfer mode: not replayed');
    if (isset(data, 'transfer_order_item_uid')) return forbidden('unsigned transfer mode: not replayed');
    // Back mode, L106-L141: every field set, hashed in this order; status is never read.
    let text = '';
    for (const k of ['created_at', 'error', 'id', 'reference', 'sandbox', 'status']) {
      if (!isset(data, k)) return forbidden(`Params ${k} is missing (data receive %s)`);
      if (text !== '') text += this.secret;
      text += `${k}=${String(data[k])}`;
    }
    if (sha256Upper(text) !== data.signature) return forbidden("Pledg Payment Hash doesn't match");
    return this.#validOrder(String(data.reference), query.get('amount'), (data.additional_data as Record<string, unknown> | undefined)?.charge_id);
  }

  /** validOrder, L161-L261: the cart from the reference, the amount from the URL's `amount`. */
  #validOrder(reference: string, amountCents: string | null, chargeId: unknown): HandlerAnswer {
    // intval(str_replace('PLEDG_', '', $reference)): the leading digits.
    if (Number.parseInt(reference.replace('PLEDG_', ''), 10) !== this.cartId) return forbidden(`Can't load cart ID`);
    if (this.state === 'paid') return forbidden('Already notified');
    if (Number.parseInt(String(amountCents), 10) !== this.totalCents) return forbidden('Total not match');
    this.state = 'paid';
    this.transactionId = chargeId;
    return { status: 200, body: '' };
  }
}
