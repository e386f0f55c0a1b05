import { PspIntegrationError, type OffSessionInput, type PspConnector, type TransactionResult } from '../../src/psp/connector.ts';
import type { ConnectorDefinition, PspAccountConfig } from '../../src/psp/definition.ts';

/**
 * A test-only connector definition with a credential kind (a public merchant id, a secret API key,
 * an algorithm, an optional passphrase that may not contain `[`), for the back-mode tests without
 * the real connectors. Payments are delegated to the built-in sandbox PSP of the app (`target()`),
 * so every flow works; on top it plays a PSP's back-mode behaviour:
 * - `verifyCredentials`: an api_key starting `sk_bad` is refused, `sk_down` is unreachable;
 * - a customer-initiated authorisation with `storeForLater` gets a network transaction id;
 * - an off-session charge must reference it (`storedCredential` with that network id), else it
 *   is declined, as the real PSPs decline a MIT without it;
 * - notifications are the sandbox's, acknowledged `[accepted]` as Adyen expects.
 * Every instance built and every off-session call is recorded in `log`.
 */
export interface FakePspLog {
  built: PspAccountConfig[];
  offSession: OffSessionInput[];
  /** Make the next `authorize` calls fail as unreachable (after reaching the PSP when `afterSend`). */
  faults: { authorize: number; afterSend: boolean; refundLostAfterRestart?: number };
}

export function fakePspDefinition(target: () => PspConnector): { definition: ConnectorDefinition; log: FakePspLog } {
  const log: FakePspLog = { built: [], offSession: [], faults: { authorize: 0, afterSend: false } };
  const definition: ConnectorDefinition = {
    name: 'fakepay',
    label: 'FakePay (tests)',
    environments: ['test', 'live'],
    credentialFields: [
      { name: 'merchant_id', secret: false, required: true, pattern: '[A-Z0-9]{4,20}', description: 'Merchant id' },
      { name: 'api_key', secret: true, required: true, pattern: 'sk_[A-Za-z0-9_]{8,}', description: 'Secret API key' },
      { name: 'algorithm', secret: false, required: true, enum: ['sha1', 'sha256', 'sha512'], description: 'Signature algorithm' },
      { name: 'passphrase', secret: true, required: false, description: 'SHA passphrase' },
      { name: 'live_prefix', secret: false, required: true, environments: ['live'], description: 'Live URL prefix' },
    ],
    validate: (c) => (c.passphrase?.includes('[') ? { field: 'passphrase', message: 'must not contain "["' } : undefined),
    baseUrl: (env) => (env === 'live' ? 'https://live.fakepay.test' : 'https://test.fakepay.test'),
    publishedHosts: { test: ['test.fakepay.test'], live: ['live.fakepay.test'] },
    create(account) {
      log.built.push(account);
      const key = account.credentials.api_key ?? '';
      const ntid = (txn: string) => `ntid_${txn.slice(-12)}`;
      const inner = (): PspConnector => target();
      const connector: PspConnector = {
        name: 'fakepay',
        sandbox: account.environment === 'test',
        attachPaymentMethod: (i) => inner().attachPaymentMethod(i),
        async authorize(i) {
          if (log.faults.authorize > 0) {
            log.faults.authorize--;
            if (log.faults.afterSend) await inner().authorize(i);
            throw new PspIntegrationError('fakepay', 'unreachable', 'timed out after 15000 ms');
          }
          const r = await inner().authorize(i);
          return i.storeForLater ? { ...r, networkTransactionId: ntid(r.transactionId) } : r;
        },
        capture: (i) => inner().capture(i),
        void: (i) => inner().void(i),
        async refund(i) {
          // A PSP that keeps no idempotency key (Ogone, Lyra) seen by a restarted process: the refund
          // went through, its answer was lost, and the key the process held is gone with it.
          if ((log.faults.refundLostAfterRestart ?? 0) > 0) {
            log.faults.refundLostAfterRestart!--;
            await inner().refund({ ...i, idempotencyKey: `${i.idempotencyKey}:before-restart` });
            throw new PspIntegrationError('fakepay', 'unreachable', 'connection reset');
          }
          return inner().refund(i);
        },
        async chargeOffSession(i): Promise<TransactionResult> {
          log.offSession.push(i);
          const ref = i.storedCredential;
          if (!ref || ref.networkTransactionId !== ntid(ref.initialTransactionId)) {
            return {
              transactionId: `fake_declined_${log.offSession.length}`,
              status: 'declined',
              amountCents: i.amountCents,
              capturedCents: 0,
              refundedCents: 0,
              decline: { reason: 'authentication_failed', message: 'MIT without a stored credential' },
            };
          }
          return inner().chargeOffSession(i);
        },
        retrieve: (id) => inner().retrieve(id),
        async verifyNotification(i) {
          const r = await inner().verifyNotification(i);
          return r.ok ? { ...r, ack: { status: 200, contentType: 'text/plain', body: '[accepted]' } } : r;
        },
        async verifyCredentials() {
          if (key.startsWith('sk_down')) throw new PspIntegrationError('fakepay', 'unreachable', 'connect ECONNREFUSED');
          if (key.startsWith('sk_bad')) return { ok: false, message: `API key ${key} is not valid` };
          return { ok: true };
        },
      };
      return connector;
    },
  };
  return { definition, log };
}
