/**
 * Loads the fixtures of test/compat/fixtures/<plugin>/ (test/compat/README.md) and turns one into
 * the request the plugin makes against a given Chipin merchant: the fixture's merchant id and
 * shop origin are replaced by the test's offer id and local receiver, nothing else changes.
 * JWTs are computed here from the fixture's exact header and payload texts and a test secret.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const PLUGINS = ['woocommerce', 'magento', 'prestashop1.7', 'sylius'] as const;
export type Plugin = (typeof PLUGINS)[number];

/** The merchant id and shop origin written in every fixture. */
export const FIXTURE_MERCHANT_UID = 'mer_3f1c2a9e-5b7d-4e21-9c0a-6d8e4f2b1a70';
export const FIXTURE_SHOP_ORIGIN = 'https://shop.example';

export interface FixtureRequest {
  method: 'GET' | 'POST';
  /** Sent to the host the plugin calls "front" (the hosted funnel) or "back" (the API): both are Chipin's public URL. */
  front?: boolean;
  back?: boolean;
  path: string;
  query?: Record<string, string>;
  /** A query string exactly as the plugin builds it (http_build_query). */
  raw_query?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Fixture {
  /** `<owner>/<repo>@<short commit>:<path>#L<a>-L<b>` */
  source: string;
  also?: string[];
  replays: string;
  plugin_checks: string;
  request?: FixtureRequest | FixtureRequest[];
  jwt?: { header: string; payload: string };
  script_settings?: Record<string, unknown>;
  receiver_path?: string;
  order?: Record<string, unknown>;
  expect?: Record<string, unknown>;
}

export function fixture(plugin: Plugin, name: string): Fixture {
  return JSON.parse(readFileSync(new URL(`./fixtures/${plugin}/${name}.json`, import.meta.url), 'utf8')) as Fixture;
}

export interface Target {
  merchantUid: string;
  /** The shop's origin as the test runs it: the local receiver's. */
  shopOrigin: string;
}

/** Replaces the fixture's merchant id and shop origin in a text, in its plain and its PHP-escaped (`\/`) spellings. */
export function retarget(text: string, t: Target): string {
  const escaped = (s: string) => s.replaceAll('/', '\\/');
  return text
    .replaceAll(FIXTURE_MERCHANT_UID, t.merchantUid)
    .replaceAll(escaped(FIXTURE_SHOP_ORIGIN), escaped(t.shopOrigin))
    .replaceAll(FIXTURE_SHOP_ORIGIN, t.shopOrigin)
    .replaceAll(encodeURIComponent(FIXTURE_SHOP_ORIGIN), encodeURIComponent(t.shopOrigin));
}

/** HS256 over the exact header and payload texts (as firebase/php-jwt and the Sylius plugin's encoder build it). */
export function jwtFromTexts(header: string, payload: string, secret: string): string {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
  const head = `${b64(header)}.${b64(payload)}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

/** The fixture's signed payload for this target (merchant id and shop origin replaced). */
export function payloadText(f: Fixture, t: Target): string {
  if (!f.jwt) throw new Error('fixture has no jwt');
  return retarget(f.jwt.payload, t);
}

/** The URL (path and query) of the fixture's request against Chipin, its JWT signed with `secret`. */
export function requestUrl(f: Fixture, t: Target, secret: string, req: FixtureRequest = f.request as FixtureRequest): string {
  const path = req.path.replace('{{merchantUid}}', t.merchantUid);
  if (req.raw_query !== undefined) return `${path}?${retarget(req.raw_query, t)}`;
  if (!req.query) return path;
  const jwt = f.jwt ? jwtFromTexts(f.jwt.header, payloadText(f, t), secret) : '';
  const q = Object.entries(req.query).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v === '{{jwt}}' ? jwt : retarget(v, t))}`);
  return `${path}?${q.join('&')}`;
}
