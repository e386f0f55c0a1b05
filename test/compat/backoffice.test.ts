import { describe, expect, it } from 'vitest';
import { compatBed } from './bed.ts';
import { fixture, type FixtureRequest } from './fixtures.ts';

// Sylius's back-office client (fixtures/sylius/backoffice-refund.json): the token it asks for
// before a refund. Its credit_by_transfer refund, on a transfer-mode purchase, is replayed in
// test/compat/transfer-mode.test.ts (docs/migrating.md#front-mode-and-virtual-cards-transfer-mode).

const bed = compatBed();

describe('Sylius back office', () => {
  it('POST /api/token as the plugin sends it (form body, HTTP Basic with the API key and secret) answers an access_token', async () => {
    const [tokenReq] = fixture('sylius', 'backoffice-refund').request as FixtureRequest[];
    const { api_key, api_secret } = bed.merchant.merchant;
    const res = await bed.app.server.inject({
      method: 'POST',
      url: tokenReq!.path,
      headers: { ...tokenReq!.headers, authorization: `Basic ${Buffer.from(`${api_key}:${api_secret}`).toString('base64')}` },
      payload: tokenReq!.body,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().access_token).toEqual(expect.any(String));
  });
});
