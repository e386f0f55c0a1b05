/**
 * The scoring hook sample of docs/risk.md#the-signature is run as written (its code block is
 * copied into a module and imported): a hook built on it, on a real server on 127.0.0.1, accepts
 * Chipin's signed request and answers what Chipin's own call (`callScoringHook`) trusts, bound to
 * that request (an answer kept and sent again for another decision is not trusted); it refuses
 * anything else without throwing. The page's worked example of the answer's signature is checked too.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box.ts';
import { hookAnswerSigned } from '../../src/domain/scoring-hook.ts';
import { signatureOf, signTimestamped } from '../../src/domain/timestamped-signature.ts';
import { AddressPolicy } from '../../src/outbound/addresses.ts';
import { callScoringHook, type ScoringHookRequest } from '../../src/risk/scoring-hook.ts';

type Verify = (secret: string, header: string | undefined, rawBody: string | Buffer, nowSeconds?: number) => boolean;
type Sign = (secret: string, decisionId: string, requestHeader: string | undefined, rawBody: string, nowSeconds?: number) => string;

const SECRET = 'hooksec_' + Buffer.alloc(32, 7).toString('base64url');
const NOW = new Date('2026-03-04T10:15:00Z');
const NOW_SECONDS = NOW.getTime() / 1000;

/** The ```js block of docs/risk.md that defines verifyChipinSignature and signChipinAnswer. */
function sampleFromDoc(): string {
  const doc = readFileSync(new URL('../../docs/risk.md', import.meta.url), 'utf8');
  const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const sample = blocks.find((b) => b.includes('function verifyChipinSignature'));
  if (!sample) throw new Error('docs/risk.md has no code block defining verifyChipinSignature');
  return sample;
}

const riskDoc = () => readFileSync(new URL('../../docs/risk.md', import.meta.url), 'utf8');

const REQUEST: ScoringHookRequest = {
  decision_id: 'dec_1',
  purchase_uid: 'pur_1',
  merchant_uid: 'mer_1',
  offer_type: 'DEFERRED',
  installments: 1,
  amount_cents: 12_345,
  currency: 'EUR',
  purpose: 'leader',
  shopper: { email: 'ann@example.com' },
  card: { bin: '555555', last4: '4444', brand: 'mastercard', funding: 'debit', exp_month: 1, exp_year: 2031, fingerprint: 'fp' },
  chipin: { eligible: true, reasons: [], score: 40 },
};

let dir: string;
let verify: Verify;
let sign: Sign;
let server: Server;
let url: string;
const seen: boolean[] = [];
/** When set, the server sends this answer (kept from an earlier request) instead of answering the request. */
let replay: { headers: Record<string, string>; body: string } | undefined;
let lastAnswer: { headers: Record<string, string>; body: string } | undefined;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chipin-hook-sample-'));
  const file = join(dir, 'hook.mjs');
  writeFileSync(file, sampleFromDoc());
  ({ verifyChipinSignature: verify, signChipinAnswer: sign } = (await import(pathToFileURL(file).href)) as { verifyChipinSignature: Verify; signChipinAnswer: Sign });
  // The handler of the doc's last paragraph, built on the sample.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ok = verify(SECRET, req.headers['chipin-signature'] as string | undefined, raw);
      seen.push(ok);
      if (!ok) return void res.writeHead(401).end();
      if (replay) return void res.writeHead(200, replay.headers).end(replay.body);
      const request = JSON.parse(raw.toString('utf8')) as ScoringHookRequest;
      const answer = JSON.stringify(request.amount_cents > 10_000 ? { decision: 'refuse', reason: 'TOO_MUCH_FOR_US', score: 20 } : { decision: 'accept' });
      const headers = { 'content-type': 'application/json', 'chipin-signature': sign(SECRET, request.decision_id, req.headers['chipin-signature'] as string | undefined, answer) };
      lastAnswer = { headers, body: answer };
      res.writeHead(200, headers).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/score`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/risk.md: the scoring hook sample, run as written', () => {
  it("verifies Chipin's request and signs an answer Chipin's call trusts", async () => {
    const box = new SecretBox(randomBytes(32));
    const hook = { url, secretEnc: box.seal(SECRET), timeoutMs: 5_000, onError: 'accept' as const, enabled: true, updatedAt: NOW };
    const verdict = await callScoringHook({ box, policy: new AddressPolicy('sandbox') }, hook, REQUEST);
    expect(verdict).toMatchObject({ source: 'hook', outcome: 'refuse', reason: 'TOO_MUCH_FOR_US', score: 20 });
    expect(seen.at(-1)).toBe(true);
    // Under another secret Chipin's request is refused by the hook (401), and Chipin takes its default.
    const other = { ...hook, secretEnc: box.seal('hooksec_other') };
    expect(await callScoringHook({ box, policy: new AddressPolicy('sandbox') }, other, REQUEST)).toMatchObject({ source: 'default', outcome: 'accept', error: 'http_status' });
    expect(seen.at(-1)).toBe(false);
  });

  it('binds its answer to the request: its accept of one decision, sent again for another, is not trusted', async () => {
    const box = new SecretBox(randomBytes(32));
    const hook = { url, secretEnc: box.seal(SECRET), timeoutMs: 5_000, onError: 'refuse' as const, enabled: true, updatedAt: NOW };
    const deps = { box, policy: new AddressPolicy('sandbox') };
    const small = { ...REQUEST, amount_cents: 5_000 };
    expect(await callScoringHook(deps, hook, small)).toMatchObject({ source: 'hook', outcome: 'accept' });
    replay = lastAnswer;
    try {
      expect(await callScoringHook(deps, hook, { ...small, decision_id: 'dec_2' })).toMatchObject({ source: 'default', outcome: 'refuse', error: 'bad_signature' });
    } finally {
      replay = undefined;
    }
  });

  it("signs the page's worked example as the page says", () => {
    const doc = riskDoc();
    const request = 't=1772619300,v1=00318689d95bbe2e041af12bbc646b4a0bb12933daa755fb2c46b39965002dfb';
    const answer = 't=1772619301,v1=88d04b3d38675cb2bd67c90fd77061758bca89c79b7ab996790f8c58cbb13dfa';
    expect(doc).toContain(`\`${request}\``);
    expect(doc).toContain(`\`${answer}\``);
    expect(signTimestamped('hooksec_example', '{"decision_id":"0b9f5e3c-3f57-4d5a-9a57-2f1e4b8f6c21"}', new Date(1772619300_000))).toBe(request);
    expect(sign('hooksec_example', '0b9f5e3c-3f57-4d5a-9a57-2f1e4b8f6c21', request, '{"decision":"accept"}', 1772619301)).toBe(answer);
    expect(doc).toContain(`1772619301.0b9f5e3c-3f57-4d5a-9a57-2f1e4b8f6c21.${signatureOf(request)}.{"decision":"accept"}`);
  });

  it('accepts what the service signs, as a string or a Buffer, and signs its answer as the service checks it', () => {
    const body = JSON.stringify(REQUEST);
    const header = signTimestamped(SECRET, body, NOW);
    expect(verify(SECRET, header, body, NOW_SECONDS)).toBe(true);
    expect(verify(SECRET, header, Buffer.from(body), NOW_SECONDS)).toBe(true);
    const answer = '{"decision":"accept"}';
    expect(sign(SECRET, REQUEST.decision_id, header, answer, NOW_SECONDS)).toBe(signTimestamped(SECRET, hookAnswerSigned(REQUEST.decision_id, signatureOf(header)!, answer), NOW));
  });

  it('refuses a tampered body, another secret and a stale timestamp, and answers false without throwing for garbage', () => {
    const body = JSON.stringify(REQUEST);
    const header = signTimestamped(SECRET, body, NOW);
    expect(verify(SECRET, header, body.replace('12345', '12346'), NOW_SECONDS)).toBe(false);
    expect(verify('hooksec_other', header, body, NOW_SECONDS)).toBe(false);
    expect(verify(SECRET, header, body, NOW_SECONDS + 301)).toBe(false);
    for (const garbage of [undefined, '', 't=1', 'v1=zz', `t=${NOW_SECONDS},v1=abcd`, 'nonsense']) expect(verify(SECRET, garbage, body, NOW_SECONDS), String(garbage)).toBe(false);
  });
});
