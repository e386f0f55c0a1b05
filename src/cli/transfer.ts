import { parseEitherSpelling, parsePublicId, toPublicId } from '../domain/ids.ts';
import { decimalAmount } from '../domain/money.ts';
import { receiveTransfer } from '../use-cases/checkout/receive-transfer.ts';
import { recordRefundTransferSent, transfersToSend } from '../use-cases/refunds/transfer-refunds.ts';
import { CliError, required, UsageError, withDatabase, withDatabaseAndClock, type Command } from './command.ts';

/** Who the audit log names for what the operator records from the CLI. */
const actor = { label: 'cli' };

/**
 * `transfer received`: a shopper's bank transfer, read on the bank statement, pays its transfer-mode
 * purchase. "Today" (the default date, the latest one taken) is the service clock's, as the
 * purchase's creation date is: a sandbox moved forward takes a transfer of its today.
 */
const received: Command = (config, values, out) =>
  withDatabaseAndClock(config, async (db, clock) => {
    const deps = { db, clock };
    const purchase = required(values, 'purchase');
    const purchaseId = parseEitherSpelling('pur', purchase);
    if (!purchaseId) throw new UsageError('--purchase must be pur_<uuid>');
    const amount = required(values, 'amount-cents');
    if (!/^\d{1,15}$/.test(amount)) throw new UsageError('--amount-cents must be a whole number of cents, e.g. 12990 for 129.90');
    const date = typeof values.date === 'string' ? values.date : undefined;
    const r = await receiveTransfer(deps, { purchaseId, amountCents: Number(amount), ...(date === undefined ? {} : { valueDate: date }), actor });
    switch (r.kind) {
      case 'recorded': {
        const p = r.purchase;
        const uid = toPublicId('pur', p.purchaseId);
        const data = {
          purchase_uid: uid,
          account_id: toPublicId('acc', p.accountId),
          amount_cents: p.amountCents,
          currency: p.currency,
          value_date: p.valueDate,
          state: p.state,
          already_recorded: r.already,
        };
        return out(
          r.already
            ? `${uid}: this transfer was already recorded on ${p.valueDate}; nothing changed`
            : `${uid}: ${decimalAmount(p.amountCents, p.currency)} ${p.currency} received on ${p.valueDate}; the purchase is paid (${p.state})`,
          data,
        );
      }
      case 'not_found':
        throw new CliError(`no purchase ${purchase}`);
      case 'not_transfer_mode':
        throw new CliError(`${purchase} was not created in transfer mode: its money is not the operator's to collect; send the transfer back`);
      case 'wrong_amount':
      case 'not_payable':
      case 'invalid_date':
      case 'in_progress':
        throw new CliError(`${purchase}: ${r.message}`);
    }
  });

/** `transfer refunds`: the refunds by transfer still to send, every merchant's. */
const refunds: Command = (config, _values, out) =>
  withDatabase(config, async (db) => {
    const list = await transfersToSend({ db });
    const rows = list.map((t) => ({
      refund_id: toPublicId('ref', t.refundId),
      purchase_uid: toPublicId('pur', t.purchaseId),
      reference: t.reference,
      merchant: t.merchantName,
      account_id: toPublicId('acc', t.accountId),
      amount_cents: t.amountCents,
      currency: t.currency,
      shopper: t.shopperName === null ? t.shopperEmail : `${t.shopperName} <${t.shopperEmail}>`,
      received_on: t.receivedOn,
      booked_at: t.bookedAt.toISOString(),
    }));
    const human = rows.map(
      (r) =>
        `${r.refund_id}  ${decimalAmount(r.amount_cents, r.currency)} ${r.currency}  to ${r.shopper}  for ${r.purchase_uid}${r.reference ? ` (${r.reference})` : ''} of ${r.merchant}; ` +
        `their transfer arrived on ${r.received_on ?? '?'}; booked ${r.booked_at}`,
    );
    return out(rows.length ? human.join('\n') : 'no refund by transfer to send', rows);
  });

/** `transfer refund-sent`: the operator sent a refund's bank transfer, recorded at the service clock's now. */
const refundSent: Command = (config, values, out) =>
  withDatabaseAndClock(config, async (db, clock) => {
    const refund = required(values, 'refund');
    const refundId = parsePublicId('ref', refund);
    if (!refundId) throw new UsageError('--refund must be ref_<uuid>');
    const r = await recordRefundTransferSent({ db, clock }, { refundId, actor });
    if (r.kind === 'not_found') throw new CliError(`no refund by transfer ${refund}`);
    const sentAt = r.transfer.sentAt?.toISOString() ?? '';
    return out(r.kind === 'sent' ? `${refund} recorded sent` : `${refund} was already recorded sent on ${sentAt}`, {
      refund_id: refund,
      sent_at: sentAt,
      already_sent: r.kind === 'already_sent',
    });
  });

/** The operator's bank transfers of transfer mode (docs/money-operations.md#payment-by-transfer). */
export const transferCommands: Record<string, Command> = {
  'transfer received': received,
  'transfer refunds': refunds,
  'transfer refund-sent': refundSent,
};
