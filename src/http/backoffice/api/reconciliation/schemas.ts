import { Type } from 'typebox';
import { toPublicId } from '../../../../domain/ids.ts';
import type { MismatchRow, RunRow } from '../../../../use-cases/reconciliation/reconciliation-log.ts';
import { ApiError } from '../../../errors.ts';

export const SECURITY = [{ apiKeyBasic: [] }];
export const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (docs/authentication.md). Admins and support users read; admins only run and mark (docs/back-office.md#roles).';
export const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

export const Run = Type.Object(
  {
    id: Type.String(),
    psp: Type.String({ description: 'The PSP’s registry name (`sandbox`, `stripe` …)' }),
    psp_account_id: Type.Union([Type.String(), Type.Null()], { description: 'The merchant’s PSP account (`psa_…`); null: the platform’s PSP' }),
    period_from: Type.String({ format: 'date-time' }),
    period_to: Type.String({ format: 'date-time', description: 'Exclusive' }),
    state: Type.Union([Type.Literal('running'), Type.Literal('interrupted'), Type.Literal('completed')]),
    pages: Type.Integer(),
    matched_count: Type.Integer({ description: 'Transactions that agree on both sides' }),
    mismatch_count: Type.Integer({ description: 'Differences found by this run (new or found again)' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'The PSP fault that interrupted the run; running the period again resumes it' }),
    started_at: Type.String({ format: 'date-time' }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'ReconciliationRun' },
);

export const Mismatch = Type.Object(
  {
    id: Type.String(),
    run_id: Type.String({ description: 'The run that last found it' }),
    psp: Type.String(),
    psp_account_id: Type.Union([Type.String(), Type.Null()]),
    transaction_id: Type.String({ description: 'The PSP’s transaction id' }),
    payment_id: Type.Union([Type.String(), Type.Null()], { description: 'Chipin’s payment; null for a transaction unknown to Chipin' }),
    purchase_uid: Type.Union([Type.String(), Type.Null()]),
    kind: Type.Union([Type.Literal('missing_at_psp'), Type.Literal('unknown_to_chipin'), Type.Literal('amount_differs'), Type.Literal('status_differs')]),
    operation: Type.Union([Type.Literal('transaction'), Type.Literal('capture'), Type.Literal('refund'), Type.Literal('chargeback')]),
    chipin_cents: Type.Union([Type.Integer(), Type.Null()]),
    psp_cents: Type.Union([Type.Integer(), Type.Null()]),
    chipin_status: Type.Union([Type.String(), Type.Null()]),
    psp_status: Type.Union([Type.String(), Type.Null()]),
    currency: Type.String(),
    state: Type.Union([Type.Literal('open'), Type.Literal('explained'), Type.Literal('resolved')]),
    note: Type.Union([Type.String(), Type.Null()]),
    resolved_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ReconciliationMismatch' },
);

/** A run as the API answers it (`Run`): public ids, ISO dates. */
export function runJson(r: RunRow) {
  return {
    id: r.id,
    psp: r.psp,
    psp_account_id: r.psp_account_id === null ? null : toPublicId('psa', r.psp_account_id),
    period_from: r.period_from.toISOString(),
    period_to: r.period_to.toISOString(),
    state: r.state,
    pages: r.pages,
    matched_count: r.matched_count,
    mismatch_count: r.mismatch_count,
    error: r.error,
    started_at: r.started_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

/** A mismatch as the API answers it (`Mismatch`): public ids, ISO dates. */
export function mismatchJson(m: MismatchRow) {
  return {
    id: m.id,
    run_id: m.run_id,
    psp: m.psp,
    psp_account_id: m.psp_account_id === null ? null : toPublicId('psa', m.psp_account_id),
    transaction_id: m.transaction_id,
    payment_id: m.payment_id,
    purchase_uid: m.purchase_id === null ? null : toPublicId('pur', m.purchase_id),
    kind: m.kind,
    operation: m.operation,
    chipin_cents: m.chipin_cents,
    psp_cents: m.psp_cents,
    chipin_status: m.chipin_status,
    psp_status: m.psp_status,
    currency: m.currency,
    state: m.state,
    note: m.note,
    resolved_at: m.resolved_at?.toISOString() ?? null,
    created_at: m.created_at.toISOString(),
    updated_at: m.updated_at.toISOString(),
  };
}

/** The lists' `limit` and `cursor` query parameters. */
export const PAGE = Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 }));
export const CURSOR = Type.Optional(Type.String({ maxLength: 200 }));
