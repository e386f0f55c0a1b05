import fc from 'fast-check';
import { loadConfig } from '../../src/config.ts';
import { describe, expect, it } from 'vitest';
import { CONTRACT_TRIGGERS } from '../../src/domain/events.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, retryAfterMs, retryDelay, verdictOf } from '../../src/delivery/policy.ts';
import { CONTRACT_TRIGGER_TABLE, DEFAULT_TRIGGERS, TRIGGERS, triggerOf } from '../../src/delivery/triggers.ts';
import { mailtoAddress } from '../../src/delivery/attempt-channels.ts';
import { standardWebhookSignature, webhookBody, webhookMessage } from '../../src/delivery/webhook-payload.ts';
import { Webhook } from 'standardwebhooks';

describe('retry policy (docs/webhooks.md#delivery-policy)', () => {
  it('retries at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up: 8 attempts', () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(n, () => 0.5))).toEqual(RETRY_DELAYS_MS);
    expect(retryDelay(8, () => 0.5)).toBeUndefined();
  });

  it('jitters each delay within ±20 %', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
        const d = retryDelay(n, () => r)!;
        const base = RETRY_DELAYS_MS[n - 1]!;
        expect(d).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
        expect(d).toBeLessThanOrEqual(Math.ceil(base * 1.2));
      }),
    );
  });

  it('honours Retry-After in seconds or as an HTTP date, clamped to [5 s, 24 h]', () => {
    const now = Date.parse('2026-03-04T10:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('0', now)).toBe(5_000);
    expect(retryAfterMs('999999', now)).toBe(86_400_000);
    expect(retryAfterMs('Wed, 04 Mar 2026 10:10:00 GMT', now)).toBe(600_000);
    expect(retryAfterMs('Wed, 04 Mar 2026 09:00:00 GMT', now)).toBe(5_000);
    expect(retryAfterMs('Sat, 04 Apr 2026 10:00:00 GMT', now)).toBe(86_400_000);
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
  });

  it('counts any 2xx as success and 410 as gone; everything else fails', () => {
    expect([200, 201, 202, 204, 299].map(verdictOf)).toEqual(Array(5).fill('succeeded'));
    expect(verdictOf(410)).toBe('gone');
    expect([undefined, 199, 301, 400, 404, 429, 500, 503].map(verdictOf)).toEqual(Array(8).fill('failed'));
  });
});

describe('webhook triggers and payload', () => {
  it('the contract triggers are those of src/domain/events.ts, and are the default subscription', () => {
    expect(Object.fromEntries(DEFAULT_TRIGGERS.map((t) => [t, TRIGGERS[t]]))).toEqual(CONTRACT_TRIGGERS);
    expect(CONTRACT_TRIGGER_TABLE).toBe(CONTRACT_TRIGGERS);
    expect(triggerOf('purchase.leader_processed')).toBe('paymentProcessed');
    expect(triggerOf('payment.failed')).toBe('paymentFailed');
    expect(triggerOf('pledge.paid')).toBe('pledgerContributes');
    expect(triggerOf('purchase.aborted')).toBe('purchaseAborted');
    expect(triggerOf('installment.failed')).toBe('installmentFailed');
    expect(triggerOf('purchase.created')).toBeUndefined();
    expect(triggerOf('payment.transaction')).toBeUndefined();
  });

  it('builds the exact body, with objects.clientId on pledgerContributes only', () => {
    const at = new Date('2026-03-04T10:15:00.123Z');
    const pledge = webhookMessage({ id: 41, type: 'pledge.paid', purchaseId: 'p-uuid', data: { client_id: 'c-uuid', pledge_id: 'x' }, createdAt: at })!;
    expect(webhookBody(pledge, 'tok')).toBe(
      '{"triggerID":41,"triggerName":"pledgerContributes","triggerDate":"2026-03-04T10:15:00.123Z","token":"tok","objects":{"purchaseId":"p-uuid","clientId":"c-uuid"}}',
    );
    const failed = webhookMessage({ id: 42, type: 'payment.failed', purchaseId: 'p-uuid', data: { client_id: 'c-uuid' }, createdAt: at })!;
    expect(JSON.parse(webhookBody(failed, 'tok')).objects).toEqual({ purchaseId: 'p-uuid' });
  });

  it('signs as Standard Webhooks does (checked with the standardwebhooks package)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 24, maxLength: 64 }), fc.string(), fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }), (key, body, ts) => {
        const secret = 'whsec_' + Buffer.from(key).toString('base64');
        expect(standardWebhookSignature(secret, 'dlv_x', ts, body)).toBe(new Webhook(secret).sign('dlv_x', new Date(ts * 1000), body));
      }),
    );
  });
});

describe('mailto: targets', () => {
  it('reads one plain address from a mailto: URL', () => {
    expect(mailtoAddress('mailto:ops@shop.example')).toBe('ops@shop.example');
    expect(mailtoAddress('mailto:ops%40shop.example?subject=x')).toBe('ops@shop.example');
    expect(mailtoAddress('mailto:a@b.example,c@d.example')).toBeUndefined();
    expect(mailtoAddress('https://x.example')).toBeUndefined();
  });
});

describe('WEBHOOK_ALLOWED_HOSTS', () => {
  const base = { MASTER_KEY: 'ab'.repeat(32), DATA_DIR: '/nonexistent-chipin-test' };
  it('is a comma-separated list of host names or addresses, trimmed and lower-cased; absent means none', () => {
    expect(loadConfig(base).webhookAllowedHosts).toEqual([]);
    expect(loadConfig({ ...base, WEBHOOK_ALLOWED_HOSTS: ' Hooks.Internal , 10.0.0.7,[::1],,' }).webhookAllowedHosts).toEqual(['hooks.internal', '10.0.0.7', '[::1]']);
  });
  it('refuses anything else, naming the variable', () => {
    expect(() => loadConfig({ ...base, WEBHOOK_ALLOWED_HOSTS: 'https://hooks.internal/' })).toThrow(/^WEBHOOK_ALLOWED_HOSTS must be a comma-separated list/);
  });
});
