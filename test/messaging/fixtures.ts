import { createServer, type Server } from 'node:net';
import type { CreatedMerchant } from '../../src/accounts/accounts.ts';
import type { ChipinApp } from '../../src/app.ts';
import { newUuid, parsePublicId } from '../../src/domain/ids.ts';
import type { PurchaseLinkMessage } from '../../src/messaging/messenger.ts';

/**
 * A purchase row for messages to reference (outbound_messages.purchase_id is a foreign key),
 * written directly so these tests do not depend on the purchase flows.
 */
export async function insertPurchaseRow(
  app: ChipinApp,
  m: CreatedMerchant,
  fields: { title?: string; amountCents?: number; currency?: string; language?: string } = {},
): Promise<{ accountId: string; purchaseId: string }> {
  const accountId = parsePublicId('acc', m.account_id)!;
  const offerId = parsePublicId('mer', m.offers[0]!.merchant_uid)!;
  const clientId = newUuid();
  const purchaseId = newUuid();
  const now = new Date();
  await app.services.db.query('INSERT INTO clients (id, account_id, email) VALUES ($1, $2, $3)', [clientId, accountId, `leader-${clientId}@example.test`]);
  await app.services.db.query(
    `INSERT INTO purchases (id, account_id, offer_id, client_id, state, comment, title, amount_cents, currency, language, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'CREATED', 'created', $5, $6, $7, $8, $9, $9)`,
    [purchaseId, accountId, offerId, clientId, fields.title ?? 'Trip to Lisbon', fields.amountCents ?? 12_345, fields.currency ?? 'EUR', fields.language ?? 'fr_FR', now],
  );
  return { accountId, purchaseId };
}

export function linkMessage(ids: { accountId: string; purchaseId: string }, over: Partial<PurchaseLinkMessage> = {}): PurchaseLinkMessage {
  return {
    ...ids,
    language: 'fr_FR',
    merchantName: 'Test Shop',
    timeZone: 'Europe/Paris',
    title: 'Trip to Lisbon',
    amountCents: 12_345,
    currency: 'EUR',
    url: `http://127.0.0.1:3000/pay/pur_${ids.purchaseId}`,
    firstName: 'Alice',
    ...over,
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP listener that accepts connections and never says a word (a hung mail server). */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
