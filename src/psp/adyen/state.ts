import { PspIntegrationError, type PspState, type TransactionRef, type TransactionResult } from '../connector.ts';
import { toTransactionResult, type AdyenEventSeen, type AdyenModification, type AdyenPaymentState } from './mapping.ts';

/**
 * An Adyen payment's state as it travels in `pspState` (stored with the payment, given back in
 * every later call): Adyen cannot be asked for it, so everything its answers and webhooks said
 * is kept there. JSON: dates as ISO strings.
 */

const STATUSES = new Set<AdyenPaymentState['status']>(['pending_action', 'authorised', 'captured', 'cancelled', 'refused', 'lapsed']);

/** The `pspState` of a payment state. */
function pspStateOf(p: AdyenPaymentState): PspState {
  const { expiresAt, challengeForm, decline, modifications, events, ...rest } = p;
  return JSON.parse(
    JSON.stringify({
      ...rest,
      ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
      ...(challengeForm ? { challengeForm } : {}),
      ...(decline ? { decline } : {}),
      modifications,
      ...(events && events.length > 0 ? { events } : {}),
    }),
  ) as PspState;
}

/** The result of a payment state, its `pspState` included. */
export function resultOf(p: AdyenPaymentState): TransactionResult {
  return { ...toTransactionResult(p), pspState: pspStateOf(p) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * The payment state a later call was given. Without one (a payment recorded before connectors
 * returned their state) or with another payment's, Adyen cannot be asked: `unknown_transaction`.
 */
export function paymentStateOf(ref: TransactionRef): AdyenPaymentState {
  const s = ref.pspState as Record<string, unknown> | null;
  const unknown = () => new PspIntegrationError('adyen', 'unknown_transaction', `no Adyen payment state for transaction ${ref.transactionId} (Adyen cannot be asked for it)`);
  if (!isObject(s) || s.pspReference !== ref.transactionId) throw unknown();
  const mods = isObject(s.modifications) ? s.modifications : {};
  const ok =
    typeof s.currency === 'string' &&
    (s.capture === 'automatic' || s.capture === 'manual') &&
    STATUSES.has(s.status as AdyenPaymentState['status']) &&
    count(s.amountCents) &&
    count(s.capturedCents) &&
    count(s.refundedCents) &&
    Object.values(mods).every((m) => isObject(m) && count(m.amount) && (m.kind === 'capture' || m.kind === 'refund' || m.kind === 'cancel'));
  if (!ok) throw new PspIntegrationError('adyen', 'bad_response', `the stored Adyen state of ${ref.transactionId} cannot be read`);
  const p: AdyenPaymentState = {
    pspReference: ref.transactionId,
    amountCents: s.amountCents as number,
    currency: s.currency as string,
    capture: s.capture as AdyenPaymentState['capture'],
    status: s.status as AdyenPaymentState['status'],
    capturedCents: s.capturedCents as number,
    refundedCents: s.refundedCents as number,
    modifications: structuredClone(mods) as Record<string, AdyenModification>,
  };
  if (isObject(s.decline)) p.decline = structuredClone(s.decline) as unknown as NonNullable<AdyenPaymentState['decline']>;
  if (typeof s.challengeUrl === 'string') p.challengeUrl = s.challengeUrl;
  if (isObject(s.challengeForm)) p.challengeForm = structuredClone(s.challengeForm) as unknown as NonNullable<AdyenPaymentState['challengeForm']>;
  if (typeof s.expiresAt === 'string') p.expiresAt = new Date(s.expiresAt);
  if (typeof s.networkTxReference === 'string') p.networkTxReference = s.networkTxReference;
  // The webhook items already folded in; a state stored before they were kept has none.
  if (Array.isArray(s.events)) p.events = s.events.filter(isEventSeen).map((e) => ({ ...e }));
  return p;
}

function isEventSeen(v: unknown): v is AdyenEventSeen {
  return (
    isObject(v) &&
    typeof v.eventCode === 'string' &&
    typeof v.pspReference === 'string' &&
    (v.success === 'true' || v.success === 'false') &&
    (v.eventDate === undefined || typeof v.eventDate === 'string')
  );
}
