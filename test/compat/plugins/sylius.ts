/**
 * Sylius (pledgcorporate/ecard-sylius, test/compat/README.md): the notification controller and
 * its processors, and the return's StatusAction, re-stated.
 */
import { json, phpJwtDecode, sha256Upper, type Handled, type HandlerAnswer } from './shop.ts';

/** src/ValueObject/Status.php#L16-L44: the values `new Status()` accepts. */
export const STATUS_VALUES = [
  'waiting',
  'pending',
  'authorized',
  'pending-capture',
  'completed',
  'failed',
  'voided',
  'refunded',
  'in-review',
  'blocked',
  'retrieval-request',
  'fraud-notification',
  'chargeback-initiated',
  'solved',
  'reversed',
];

/** Status::convertToPaymentState, src/ValueObject/Status.php#L97-L116 */
export function toPaymentState(status: string): string {
  if (!STATUS_VALUES.includes(status)) throw new Error(`Value '${status}' is not part of the enum Status`);
  if (['pending', 'pending-capture', 'in-review'].includes(status)) return 'processing';
  if (status === 'authorized') return 'authorized';
  if (status === 'completed') return 'completed';
  if (['failed', 'blocked'].includes(status)) return 'failed';
  if (status === 'refunded') return 'refunded';
  return 'unknown';
}

/**
 * Sylius's payment state machine (sylius/sylius, the sylius_payment graph; not the plugin's
 * code): the states each target can be reached from. `getTransitionToState` finds none from
 * elsewhere, and the processors then change nothing.
 */
const REACHABLE_FROM: Record<string, string[]> = {
  processing: ['new'],
  authorized: ['new', 'processing'],
  completed: ['new', 'processing', 'authorized'],
  failed: ['new', 'processing'],
  cancelled: ['new', 'processing', 'authorized'],
  refunded: ['completed'],
};

/** StandardValidator, src/Notification/Collector/StandardValidator.php#L19-L88 */
const REQUIRED_KEYS = ['created_at', 'id', 'metadata', 'status', 'sandbox', 'error', 'reference', 'signature'];
export function standardSignature(content: Record<string, unknown>, secret: string): string {
  const signed = ['created_at', 'error', 'id', 'reference', 'sandbox', 'status'].filter((k) => k in content).sort();
  return sha256Upper(signed.map((k) => `${k}=${typeof content[k] === 'boolean' ? (content[k] ? 'true' : 'false') : String(content[k] ?? '')}`).join(secret));
}

/** ErrorNotificationValidator::supports, src/Notification/Collector/ErrorNotificationValidator.php#L9-L37 */
const ERROR_STATES = [
  'BI_CANCELLED',
  'BI_KO',
  'BI_SCORING_KO',
  'CONNECTOR_KO',
  'PRIMARY_KO',
  'REVENUE_KO',
  'SCORING_KO',
  'TMX_SCORING_KO',
  'VCP_KO',
  'FIRCOSOFT_FILTER_KO',
  'FICP_FILTER_KO',
  'RULE_ENGINE_FILTERS_KO',
  'RULE_ENGINE_OPEN_BANKING_KO',
  'COVERAGE_KO',
  'MERCHANT_TIMEOUT',
  'IDENTIFICATION_KO',
  'SIGNATURE_KO',
];
function errorSupports(c: Record<string, unknown>): boolean {
  if (c.reference === undefined || c.reference === null) return false;
  if (c.state !== undefined && c.state !== null) {
    const s = String(c.state).toUpperCase();
    return ERROR_STATES.includes(s) || s.endsWith('_KO');
  }
  if (c.acceptance_state !== undefined && c.acceptance_state !== null) return ['REJECTED', 'ABANDONED'].includes(String(c.acceptance_state).toUpperCase());
  return false;
}

export class SyliusShop {
  /** The Sylius payment's state. */
  state = 'new';
  readonly handled: Handled[] = [];
  constructor(
    readonly reference: string,
    readonly secret: string,
    readonly now: () => number,
  ) {}

  /** NotificationAction, src/Controller/Webhook/NotificationAction.php#L23-L61: any exception is 400 {"error"}. */
  handle(path: string, body: string): HandlerAnswer {
    const before = this.state;
    let answer: HandlerAnswer;
    try {
      const content = JSON.parse(body) as Record<string, unknown>;
      if (Object.keys(content).length === 0) answer = json(200, { status: 'ok' });
      else {
        this.#process(content);
        answer = json(200, { status: 'ok' });
      }
    } catch (e) {
      answer = json(400, { error: (e as Error).message });
    }
    this.handled.push({ path, body, answer, effect: this.state === before ? 'unchanged' : this.state });
    return answer;
  }

  #move(to: string): void {
    if (REACHABLE_FROM[to]?.includes(this.state)) this.state = to;
  }

  #payment(reference: unknown): void {
    if (reference !== this.reference) throw new Error(`no payment for reference ${String(reference)}`);
  }

  /** CompositeProcessor (services.xml#L32-L59: standard 30, error 20, transfer 10), first that supports wins. */
  #process(content: Record<string, unknown>): void {
    // StandardProcessor, src/Notification/Collector/StandardProcessor.php#L22-L36
    if (REQUIRED_KEYS.every((k) => k in content)) {
      this.#payment(content.reference);
      if (content.signature !== standardSignature(content, this.secret)) throw new Error(`The signature ${String(content.signature)} is not valid`);
      this.#move(toPaymentState(String(content.status)));
      return;
    }
    // ErrorNotificationProcessor, src/Notification/Collector/ErrorNotificationProcessor.php#L26-L67: a lone signature is decoded WITHOUT verification first.
    let resolved = content;
    if (Object.keys(content).length === 1 && typeof content.signature === 'string') {
      try {
        resolved = JSON.parse(Buffer.from(content.signature.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      } catch {
        resolved = content;
      }
    }
    if (errorSupports(resolved)) {
      this.#payment(resolved.reference);
      this.#move('failed');
      return;
    }
    // TransferProcessor + TransferValidator, src/Notification/Collector/TransferProcessor.php#L24-L42, TransferValidator.php#L35-L50
    if (Object.keys(content).length === 1 && typeof content.signature === 'string') {
      const body = phpJwtDecode(content.signature, this.secret, this.now());
      this.#payment(body.reference);
      if (body.transfer_order_item_uid !== undefined) this.#move('completed');
      return;
    }
    throw new Error(`There is no notification collector that supports ${JSON.stringify(content)}`);
  }
}

/**
 * StatusAction::execute, src/Payum/Action/StatusAction.php#L39-L104, on the after URL: what the
 * Payum request is marked. Throws where the plugin throws (a result that is not JSON, a status
 * outside the enum).
 */
export function returnStatus(query: URLSearchParams): string {
  const result = query.get('pledg_result');
  const error = query.get('pledg_error');
  if (result !== null) {
    const r = JSON.parse(result) as { transaction?: { status?: string }; purchase?: unknown };
    const status = r.transaction?.status ?? (r.purchase !== undefined ? 'completed' : 'waiting');
    toPaymentState(status); // new Status(): a value outside the enum throws
    // markRequest, Status.php#L66-L95
    if (['waiting', 'pending', 'pending-capture'].includes(status)) return 'pending';
    if (status === 'authorized') return 'authorized';
    if (status === 'completed') return 'captured';
    if (['failed', 'blocked'].includes(status)) return 'failed';
    if (status === 'refunded') return 'refunded';
    return 'unknown';
  }
  if (error !== null) {
    const e = JSON.parse(error) as { type?: string };
    return e.type === 'abandonment' ? 'canceled' : 'failed';
  }
  return 'new';
}
