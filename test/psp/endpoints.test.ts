import { describe, expect, it } from 'vitest';
import { hostOf } from '../../src/outbound/addresses.ts';
import { CONNECTOR_DEFINITIONS } from '../../src/psp/definitions.ts';
import { matchesHostPattern, PspEndpoints } from '../../src/psp/endpoints.ts';
import { HIPAY_HOSTS } from '../../src/psp/hipay/connector.ts';

/** The endpoint rule (src/psp/endpoints.ts): where each connector may call in production. */
const production = new PspEndpoints('production');
const CREDENTIALS = { live_url_prefix: '1797a841fbb37ca7-AdyenDemo' };
const real = CONNECTOR_DEFINITIONS.filter((d) => d.name !== 'sandbox');

describe('PSP endpoints in production', () => {
  it.each(real.flatMap((d) => d.environments.map((env) => [d.name, env] as const)))('%s (%s): its own base URL is on one of its published hosts', (name, env) => {
    const def = real.find((d) => d.name === name)!;
    const base = def.baseUrl(env, CREDENTIALS);
    expect(production.hostRefusal(def, env, hostOf(base)!)).toBeUndefined();
    expect(production.endpointProblem(def, env, base)).toBeUndefined();
  });

  it("HiPay's vault and consultation hosts are published with its gateway, per environment", () => {
    const hipay = real.find((d) => d.name === 'hipay')!;
    for (const env of ['test', 'live'] as const) for (const host of HIPAY_HOSTS[env]) expect(production.hostRefusal(hipay, env, host)).toBeUndefined();
    expect(production.hostRefusal(hipay, 'live', 'stage-secure2-vault.hipay-tpp.com')).toMatch(/not one of hipay's hosts for live/);
  });

  it("reads a wildcard as the start of the first label only (Adyen's live prefix)", () => {
    const p = '*-checkout-live.adyenpayments.com';
    expect(matchesHostPattern(p, '1797a841fbb37ca7-adyendemo-checkout-live.adyenpayments.com')).toBe(true);
    expect(matchesHostPattern(p, 'checkout-live.adyenpayments.com')).toBe(false);
    expect(matchesHostPattern(p, 'evil.x-checkout-live.adyenpayments.com')).toBe(false);
    expect(matchesHostPattern(p, 'x-checkout-live.adyenpayments.com.collector.example')).toBe(false);
    expect(matchesHostPattern(p, '-checkout-live.adyenpayments.com')).toBe(false);
  });

  it("takes a host of the operator's allowlist, http included; a sandbox deployment takes local fakes and any https", () => {
    const stripe = real.find((d) => d.name === 'stripe')!;
    const allowing = new PspEndpoints('production', ['egress.internal']);
    expect(allowing.endpointProblem(stripe, 'live', 'http://egress.internal:8080')).toBeUndefined();
    expect(allowing.hostRefusal(stripe, 'live', 'EGRESS.internal.')).toBeUndefined();
    expect(production.endpointProblem(stripe, 'live', 'http://egress.internal:8080')).toMatchObject({ field: 'endpoint_url' });
    const sandbox = new PspEndpoints('sandbox');
    expect(sandbox.endpointProblem(stripe, 'test', 'http://127.0.0.1:4010')).toBeUndefined();
    expect(sandbox.endpointProblem(stripe, 'test', 'https://psp-proxy.example')).toBeUndefined();
    expect(sandbox.endpointProblem(stripe, 'test', 'http://psp-proxy.example')).toMatchObject({ field: 'endpoint_url' });
    expect(sandbox.hostRefusal(stripe, 'test', '127.0.0.1')).toBeUndefined();
  });
});
