/**
 * WooCommerce (pledgcorporate/ecard-woocommerce, test/compat/README.md): the REST controller that
 * receives paymentNotificationUrl, and the cancel notice that reads pledg_error, re-stated.
 */
import { json, phpJwtDecode, phpString, sha256Upper, type Handled, type HandlerAnswer } from './shop.ts';

/** includes/classes/WC_Pledg_REST_Controller.php#L266-L270: the order id inside `Pledg_<id>_<time>`. */
export function idFromReference(ref: string): string | undefined {
  return /Pledg_([a-zA-Z0-9]+)_[0-9]+/.exec(ref)?.[1];
}

/** includes/classes/WC_Pledg_REST_Controller.php#L207-L232: check_signature_back, the six fields in this order, and `status == 'completed'`. */
export function checkSignatureBack(params: Record<string, unknown>, secret: string): boolean {
  const fields = ['created_at', 'error', 'id', 'reference', 'sandbox', 'status'];
  const text = fields.map((f) => `${f}=${phpString(params[f])}`).join(secret);
  return sha256Upper(text) === params.signature && params.status == 'completed';
}

export class WooCommerceShop {
  /** WooCommerce order statuses: pending until paid (processing). */
  status: 'pending' | 'processing' | 'cancelled' = 'pending';
  readonly handled: Handled[] = [];
  constructor(
    readonly orderId: string,
    readonly secret: string,
  ) {}

  /** The REST route pledg/v2/order/(?P<getId>\d+) (L49-L58) and check_response (L64-L121), JSON body as WP_REST_Request reads it. */
  handle(path: string, contentType: string | undefined, body: string): HandlerAnswer {
    const getId = /\/pledg\/v2\/order\/(\d+)/.exec(path)?.[1];
    // WP_REST_Request::get_params() merges the JSON body only for a JSON content type.
    const fromBody = contentType?.startsWith('application/json') ? (JSON.parse(body) as Record<string, unknown>) : {};
    const params: Record<string, unknown> = { ...fromBody, getId };
    const answer = this.#decide(params);
    this.handled.push({ path, body, answer, effect: answer.status === 200 ? 'paid' : 'unchanged' });
    return answer;
  }

  #decide(params: Record<string, unknown>): HandlerAnswer {
    // get_case, L132-L185
    if (params.getId !== this.orderId) return json(403, { state: 'Error', message: "getId didn't match any order" });
    if (params.reference === undefined) {
      if (params.signature !== undefined) return json(403, { state: 'Error', message: 'signed transfer: not a back-mode notification' });
      return json(403, { state: 'Error', message: 'no reference' });
    }
    if (idFromReference(String(params.reference)) != params.getId) return json(403, { state: 'Error', message: "reference didn't match the getId" });
    if (params.signature === undefined) return json(403, { state: 'Error', message: 'unsigned transfer: amount_cents check' });
    // CASE_SIGNED_BACK, L82-L88, then L97-L114
    if (!checkSignatureBack(params, this.secret)) return json(403, { state: 'Error', message: 'Decoding the message thrown an error.' });
    // payment_complete, L193-L200: once; an order already processing is left as it is.
    if (this.status === 'pending') this.status = 'processing';
    return json(200, { state: 'Ok', case: 2, id: this.orderId, order_status: this.status });
  }
}

/**
 * woocommerce-pledg.php#L128-L188: the notice shown on the cancel URL. Answers null when the
 * plugin's conditions are not met (no pledg_error), else whether it is a plain cancellation
 * (`abandonment`) and the message shown.
 */
export function cancelNotice(query: URLSearchParams, secret: string, nowSeconds: number): { cancel: boolean; message: string } | null {
  const raw = query.get('pledg_error');
  if (!query.has('cancel_order') || !query.has('order') || !query.has('order_id') || raw === null) return null;
  // stripslashes() undoes WordPress's magic quotes: the value as sent.
  const error = JSON.parse(raw) as { signature?: string; type?: string; message?: string };
  if ('signature' in error) {
    try {
      const claims = phpJwtDecode(String(error.signature), secret, nowSeconds) as { error: { type: string; message: string } };
      return { cancel: claims.error.type === 'abandonment', message: claims.error.message };
    } catch (e) {
      return { cancel: false, message: `Unknown error : ${(e as Error).message}` };
    }
  }
  return { cancel: error.type === 'abandonment', message: String(error.message) };
}
