import type { OfferCache } from '../accounts/offers.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Messenger } from '../messaging/messenger.ts';
import type { MoneyDeps } from '../money/deps.ts';
import type { RiskDeps } from './risk/payment-risk.ts';

/** What the payment use cases need: a narrow view of the services, the money engine's included. */
export interface PaymentDeps extends MoneyDeps {
  offers: OfferCache;
  messenger: Messenger;
  /** Opens the offers' signing secrets (front-end results, `trigger_capture` signatures). */
  box: SecretBox;
  publicUrl: string;
  /** The payment-time risk decision's rules, card key and scoring hook (docs/risk.md#the-decision-at-payment-time). */
  risk: RiskDeps;
}
