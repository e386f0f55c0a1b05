import { Type, type Static } from 'typebox';
import { toPublicId } from '../../domain/ids.ts';
import type { Refund } from '../../payments/refund-repository.ts';

const State = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
  description: '`pending` while a PSP call is under way (retried), `succeeded`, or `failed` (the PSP refused; `failure_reason` says why)',
});

const RefundAllocationSchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('refund'), Type.Literal('installment'), Type.Literal('transfer')], {
      description:
        '`refund`: paid back on a captured payment; `installment`: an installment not collected yet lowered (cancelled at 0; a deferred hold lowered, or voided at 0); ' +
        "`transfer`: paid back by the operator's bank transfer, on a transfer-mode purchase the shopper paid by bank transfer",
    }),
    payment_id: Type.Optional(Type.String({ format: 'uuid', description: 'The payment refunded (or the deferred hold lowered)' })),
    installment_id: Type.Optional(Type.String({ format: 'uuid' })),
    payer: Type.Union([Type.Literal('leader'), Type.Literal('pledger')]),
    pledge_id: Type.Optional(Type.String({ examples: ['plg_0b8e4a9c-7a51-4c0e-9d33-3c1d2f6b8a10'] })),
    amount: Type.Integer({ description: 'Minor units' }),
    state: State,
    failure_reason: Type.Optional(Type.String()),
  },
  { title: 'RefundAllocation' },
);

export const RefundSchema = Type.Object(
  {
    id: Type.String({ examples: ['ref_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    purchase_id: Type.String({ format: 'uuid' }),
    amount: Type.Integer({ description: 'What was asked, minor units; what moved is the sum of the succeeded allocations' }),
    reason: Type.Optional(Type.String()),
    state: State,
    failure_reason: Type.Optional(Type.String()),
    allocations: Type.Array(RefundAllocationSchema),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Refund' },
);
export type RefundV1 = Static<typeof RefundSchema>;

export const NewRefundPayload = Type.Object(
  {
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1e12, description: 'Minor units; default: everything still refundable' })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false, title: 'NewRefundPayload' },
);

/** A refund request without a body asks for everything refundable: validate it as `{}`. */
export function noBodyIsEmpty(request: { body: unknown }, _reply: unknown, done: () => void): void {
  if (request.body === undefined || request.body === null) request.body = {};
  done();
}

export function refundV1(r: Refund): RefundV1 {
  return {
    id: toPublicId('ref', r.id),
    purchase_id: r.purchaseId,
    amount: r.amountCents,
    ...(r.reason !== null ? { reason: r.reason } : {}),
    state: r.state,
    ...(r.failureReason !== null ? { failure_reason: r.failureReason } : {}),
    allocations: r.allocations.map((a) => ({
      kind: a.kind,
      ...(a.paymentId ? { payment_id: a.paymentId } : {}),
      ...(a.installmentId ? { installment_id: a.installmentId } : {}),
      payer: a.payer,
      ...(a.pledgeId ? { pledge_id: toPublicId('plg', a.pledgeId) } : {}),
      amount: a.amountCents,
      state: a.state,
      ...(a.failureReason !== null ? { failure_reason: a.failureReason } : {}),
    })),
    created_at: r.createdAt.toISOString(),
  };
}
