/**
 * The hand-written webhook check in docs/webhooks.md is run as written (its code block is copied
 * into a module and imported), against webhooks signed by the service's own request builder: a
 * merchant who copies it gets a check that accepts ours and refuses anything else without throwing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookRequest } from '../../src/delivery/attempt-request.ts';
import { Redacted } from '../../src/domain/redacted.ts';

type Verify = (secret: string, headers: Record<string, string | undefined>, rawBody: string | Buffer, nowSeconds?: number) => boolean;

const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
const NOW = new Date('2026-03-04T10:15:00Z');
const NOW_SECONDS = NOW.getTime() / 1000;

/** The ```js block of docs/webhooks.md that defines verifyChipinWebhook. */
function sampleFromDoc(): string {
  const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
  const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const sample = blocks.find((b) => b.includes('function verifyChipinWebhook'));
  if (!sample) throw new Error('docs/webhooks.md has no code block defining verifyChipinWebhook');
  return sample;
}

function signedWebhook(secret = SECRET) {
  const endpoint = { accountId: 'acc', url: 'https://merchant.example/hook', events: [], token: new Redacted('tok'), secret: new Redacted(secret) };
  const message = { triggerID: 42, triggerName: 'paymentProcessed' as const, triggerDate: NOW.toISOString(), objects: { purchaseId: '6f1c1f3e-5b7a-4f8e-9a39-1c3c1b2d4e5f' } };
  const request = webhookRequest(endpoint as never, 'dlv_6f1c1f3e-5b7a-4f8e-9a39-1c3c1b2d4e5f', message, () => NOW);
  return { headers: request.headers, body: request.body };
}

let dir: string;
let verify: Verify;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chipin-webhook-sample-'));
  const file = join(dir, 'verify.mjs');
  writeFileSync(file, sampleFromDoc());
  verify = ((await import(pathToFileURL(file).href)) as { verifyChipinWebhook: Verify }).verifyChipinWebhook;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/webhooks.md: the hand-written signature check, run as written', () => {
  it('accepts a webhook signed by the service, with the body as a string or a Buffer', () => {
    const { headers, body } = signedWebhook();
    expect(verify(SECRET, headers, body, NOW_SECONDS)).toBe(true);
    expect(verify(SECRET, headers, Buffer.from(body), NOW_SECONDS)).toBe(true);
  });

  it('refuses a tampered body, another secret, another id and a stale timestamp', () => {
    const { headers, body } = signedWebhook();
    expect(verify(SECRET, headers, body.replace('"triggerID":42', '"triggerID":43'), NOW_SECONDS)).toBe(false);
    expect(verify('whsec_' + Buffer.alloc(32, 8).toString('base64'), headers, body, NOW_SECONDS)).toBe(false);
    expect(verify(SECRET, { ...headers, 'webhook-id': 'dlv_other' }, body, NOW_SECONDS)).toBe(false);
    expect(verify(SECRET, headers, body, NOW_SECONDS + 301)).toBe(false);
  });

  it('answers false, without throwing, for a signature of the wrong length and for missing headers', () => {
    const { headers, body } = signedWebhook();
    const short = { ...headers, 'webhook-signature': 'v1,' + Buffer.alloc(16).toString('base64') };
    expect(() => verify(SECRET, short, body, NOW_SECONDS)).not.toThrow();
    expect(verify(SECRET, short, body, NOW_SECONDS)).toBe(false);
    expect(verify(SECRET, { ...headers, 'webhook-signature': 'v1,' }, body, NOW_SECONDS)).toBe(false);
    expect(verify(SECRET, { ...headers, 'webhook-signature': undefined }, body, NOW_SECONDS)).toBe(false);
  });
});
