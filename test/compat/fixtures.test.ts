import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildNotification } from '../../src/delivery/notification.ts';
import { FIXTURE_MERCHANT_UID, fixture, PLUGINS, type Plugin } from './fixtures.ts';
import { backSignature as magentoSignature, MagentoShop } from './plugins/magento.ts';
import { PrestaShopShop } from './plugins/prestashop.ts';
import { standardSignature as syliusSignature, SyliusShop } from './plugins/sylius.ts';
import { checkSignatureBack as wooAccepts, WooCommerceShop } from './plugins/woocommerce.ts';

// The fixtures themselves (test/compat/README.md): each cites the plugin's file and lines at the
// commit named in the README, and each plugin's re-stated signature rule agrees with the
// interface's worked example and with the notification body Chipin builds.

const README = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
const REPOS: Record<Plugin, string> = {
  woocommerce: 'pledgcorporate/ecard-woocommerce',
  magento: 'pledgcorporate/ecard-magento',
  'prestashop1.7': 'pledgcorporate/ecard-prestashop1.7',
  sylius: 'pledgcorporate/ecard-sylius',
};
const names = (p: Plugin) =>
  readdirSync(new URL(`./fixtures/${p}/`, import.meta.url))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5));

describe('compatibility fixtures', () => {
  for (const plugin of PLUGINS) {
    it(`${plugin}: every fixture cites ${REPOS[plugin]} at the README's commit, with file and lines, and says what it replays and what the plugin checks`, () => {
      const commit = new RegExp(`\`${REPOS[plugin]}\` \\| \`([0-9a-f]{40})\``).exec(README)?.[1];
      expect(commit).toBeDefined();
      expect(names(plugin).length).toBeGreaterThan(0);
      for (const name of names(plugin)) {
        const f = fixture(plugin, name);
        for (const cite of [f.source, ...(f.also ?? [])]) {
          expect(cite, `${plugin}/${name}`).toMatch(new RegExp(`^${REPOS[plugin]}@${commit!.slice(0, 7)}:[\\w./-]+#L\\d+(-L\\d+)?$`));
        }
        expect(f.replays.length, `${plugin}/${name}`).toBeGreaterThan(20);
        expect(f.plugin_checks.length, `${plugin}/${name}`).toBeGreaterThan(10);
        if (f.jwt) {
          // The texts are JSON; the header is the one the plugins' encoders write; the payload is {data: settings}.
          expect(JSON.parse(f.jwt.header)).toEqual({ typ: 'JWT', alg: 'HS256' });
          const payload = JSON.parse(f.jwt.payload) as { data: Record<string, unknown> };
          expect(Object.keys(payload)).toEqual(['data']);
          expect(payload.data.merchantUid).toBe(FIXTURE_MERCHANT_UID);
          // PHP's json_encode escapes every slash and every non-ASCII character.
          expect(f.jwt.payload).not.toMatch(/[^\\]\/|[^\x20-\x7e]/);
        }
      }
    });
  }
});

const example = JSON.parse(readFileSync(new URL('../fixtures/notification-signature.json', import.meta.url), 'utf8')) as {
  secret: string;
  body: Record<string, unknown>;
  signature: string;
};

describe("the plugins' signature rules", () => {
  const signed = { ...example.body, signature: example.signature };
  it("agree with the interface's worked example", () => {
    expect(wooAccepts(signed, example.secret)).toBe(true);
    expect(magentoSignature(signed, example.secret)).toBe(example.signature);
    expect(syliusSignature(signed, example.secret)).toBe(example.signature);
  });

  it('accept the completed notification Chipin builds, each handler marking its order paid', () => {
    const secret = 'test-offer-secret';
    const body = (reference: string) =>
      buildNotification(
        {
          transaction: { created_at: '2026-01-01T10:00:00.000Z', id: 'ch_1', status: 'completed', error: null, additional_data: { charge_id: 'ch_1' } },
          reference,
          metadata: {},
          sandbox: true,
        },
        secret,
      );
    const woo = new WooCommerceShop('1234', secret);
    expect(woo.handle('/wp-json/pledg/v2/order/1234/', 'application/json', JSON.stringify(body('Pledg_1234_1767225600'))).status).toBe(200);
    expect(woo.status).toBe('processing');
    const magento = new MagentoShop('000000123', secret);
    expect(magento.handle('/pledg/checkout/ipn/', JSON.stringify(body('order_000000123'))).status).toBe(200);
    expect(magento.state).toBe('processing');
    const presta = new PrestaShopShop(57, 6980, secret);
    expect(presta.handle('/module/pledg/notification?pledgPayment=1&amount=6980&currency=EUR', JSON.stringify(body('PLEDG_57_1767225600'))).status).toBe(200);
    expect(presta.state).toBe('paid');
    const sylius = new SyliusShop('PLEDGBYSOFINCO_42_57', secret, () => 0);
    expect(sylius.handle('/notification', JSON.stringify(body('PLEDGBYSOFINCO_42_57'))).status).toBe(200);
    expect(sylius.state).toBe('completed');
  });
});
