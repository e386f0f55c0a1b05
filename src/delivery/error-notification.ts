import { signHs256 } from './jwt.ts';

/**
 * The error notification sent to a purchase's `errorNotificationUrl` when it fails after the
 * payment screen (docs/webhooks.md#error-notification): the original interface's body, signed as
 * a JWT (HS256) with the offer's secret and sent alone in `signature`, as that interface does for
 * a merchant with a secret (every Chipin offer has one). Pure.
 */
export interface ErrorNotificationInput {
  /** The merchant's reference; `''` when it gave none. */
  reference: string | null;
  /** `pur_<uuid>`. */
  purchaseUid: string;
  state: 'PRIMARY_KO' | 'SCORING_KO';
}

/**
 * The body as JSON text: `{"signature": <JWT>}`, whose claims are `reference`, `purchase_state`,
 * `purchase_uid` and `state`. `state` repeats `purchase_state`: the interface documents the
 * latter, and a published plugin (Sylius) recognises an error notification by the former.
 */
export function buildErrorNotification(input: ErrorNotificationInput, secret: string): string {
  const claims = { reference: input.reference ?? '', purchase_state: input.state, purchase_uid: input.purchaseUid, state: input.state };
  return JSON.stringify({ signature: signHs256(claims, secret) });
}
