import { describe, expect, it } from 'vitest';
import { AddressPolicy, hostOf, isInternalAddress } from '../../src/outbound/addresses.ts';

describe('outbound addresses: what a merchant URL may not reach in production', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fd00::1',
    'fc00::2',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    'ff02::1',
    'not-an-address',
    // Old IPv4 spellings never reach the check (the URL parser and the resolver write a.b.c.d):
    // were one to, it is refused, never read as some other address.
    '2130706433',
    '0x7f.1',
    '127.1',
  ])('%s is internal', (ip) => expect(isInternalAddress(ip)).toBe(true));

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2a00:1450:4007:80e::200e', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is public', (ip) =>
    expect(isInternalAddress(ip)).toBe(false),
  );

  it('reads a URL host as the connection will: every IPv4 spelling as a.b.c.d, IPv6 without brackets', () => {
    expect(['https://2130706433:8443/', 'https://0x7f.1/', 'https://127.1/', 'https://0177.0.0.1/'].map(hostOf)).toEqual(Array(4).fill('127.0.0.1'));
    expect(hostOf('https://[::ffff:127.0.0.1]/')).toBe('::ffff:7f00:1');
    expect(hostOf('https://API.Stripe.com./v1')).toBe('api.stripe.com');
    expect(hostOf('not a url')).toBeUndefined();
  });

  it('refuses internal addresses in production unless the host is allowed; the sandbox allows them', () => {
    const prod = new AddressPolicy('production', ['hooks.internal', '127.0.0.1']);
    expect(prod.refusal('shop.example', '10.0.0.5')).toMatch(/internal address/);
    expect(prod.refusal('shop.example', '93.184.216.34')).toBeUndefined();
    expect(prod.refusal('HOOKS.internal.', '10.0.0.5')).toBeUndefined();
    expect(prod.refusal('127.0.0.1', '127.0.0.1')).toBeUndefined();
    expect(new AddressPolicy('sandbox').refusal('localhost', '127.0.0.1')).toBeUndefined();
  });

  it('names the variable that would allow a host', () => {
    expect(new AddressPolicy('production').refusal('127.0.0.1', '127.0.0.1')).toBe('refused: 127.0.0.1 is an internal address (allow it with WEBHOOK_ALLOWED_HOSTS)');
    expect(new AddressPolicy('production', [], 'PSP_ENDPOINT_ALLOWLIST').refusal('psp.example', '10.0.0.1')).toBe(
      'refused: psp.example resolves to 10.0.0.1, an internal address (allow it with PSP_ENDPOINT_ALLOWLIST)',
    );
  });
});
