import { Type, type Static } from 'typebox';
import { toPublicId } from '../../domain/ids.ts';
import type { DisputeRow } from '../../payments/dispute-repository.ts';

/** A dispute as the sandbox helpers and the back-office API show it (docs/money-operations.md#disputes). */
export const DisputeSchema = Type.Object(
  {
    id: Type.String({ description: '`dsp_<uuid>`', examples: ['dsp_0b8f8e2a-3c4d-4e5f-8a9b-1c2d3e4f5a6b'] }),
    purchase_uid: Type.String({ description: '`pur_<uuid>`' }),
    psp: Type.String({ description: 'The connector the disputed payment ran on', examples: ['sandbox', 'stripe'] }),
    psp_dispute_id: Type.String({ description: "The PSP's id of the dispute" }),
    kind: Type.String({ description: '`chargeback`, `retrieval` (a request for information) or `fraud_warning`' }),
    state: Type.String({ description: '`open`, `evidence_sent`, `won`, `lost` or `closed`' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: "The PSP's reason code or label, verbatim" }),
    amount_cents: Type.Integer({ description: 'What the bank disputes; a lost chargeback takes it from the merchant' }),
    currency: Type.String({ examples: ['EUR'] }),
    evidence_due_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    evidence_sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    opened_at: Type.String({ format: 'date-time' }),
    closed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type DisputeView = Static<typeof DisputeSchema>;

export function disputeView(d: DisputeRow): DisputeView {
  return {
    id: toPublicId('dsp', d.id),
    purchase_uid: toPublicId('pur', d.purchase_id),
    psp: d.psp,
    psp_dispute_id: d.psp_dispute_id,
    kind: d.kind,
    state: d.state,
    reason: d.reason,
    amount_cents: d.amount_cents,
    currency: d.currency,
    evidence_due_at: d.evidence_due_at?.toISOString() ?? null,
    evidence_sent_at: d.evidence_sent_at?.toISOString() ?? null,
    opened_at: d.opened_at.toISOString(),
    closed_at: d.closed_at?.toISOString() ?? null,
  };
}
