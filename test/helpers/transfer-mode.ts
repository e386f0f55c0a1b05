import type { ChipinApp } from '../../src/app.ts';
import type { BankDetails } from '../../src/payouts/bank-details.ts';
import type { Caller } from './api.ts';

/**
 * Transfer mode in tests (docs/money-operations.md#transfer-mode): a merchant's sandbox offer
 * switched to transfer mode (the built-in sandbox PSP is an allowed collecting account outside
 * production), and the operator's bank account of the payment by transfer.
 */

/** A valid IBAN (checksum right) and BIC of no real account. */
export const OPERATOR_BANK: BankDetails = { holderName: 'Chipin Operator SAS', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPPXXX' };

/** Puts the merchant's offers of `type` in transfer mode; purchases made on them from now on are transfer-mode purchases. */
export async function useTransferMode(app: ChipinApp, c: Caller, type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED' = 'SHARED'): Promise<void> {
  await app.services.db.query(`UPDATE offers SET payment_mode = 'transfer' WHERE account_id = $1 AND type = $2 AND psp_account_id IS NULL`, [c.accountId, type]);
}
