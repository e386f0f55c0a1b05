import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A 3-D Secure step that the card issuer's page (ACS) wants as a form POST: Ogone's
 * `HTML_ANSWER` form, Lyra's `redirectUrl` + `postData`. Chipin's contract hands the shopper a
 * URL (`challenge_url`), so such a step becomes a URL of ours, `/psp-challenge`, whose page posts
 * the form in the shopper's browser (docs/psp-connectors.md, "3-D Secure").
 */
export interface ChallengeForm {
  action: string;
  fields: Readonly<Record<string, string>>;
}

export const CHALLENGE_RELAY_PATH = '/psp-challenge';

/** The longest form we relay (encoded): well under the 16 KiB Node allows for a request line. */
const MAX_ENCODED = 8_000;

/**
 * Seals a challenge form into a URL and opens it again. The form rides in the URL itself, so
 * every process serves it without a store; the HMAC (a key of its own, derived from the master
 * key) keeps the page from posting a form anyone else wrote: an open relay would let another
 * site make a page of ours submit to wherever it likes.
 */
export class ChallengeRelay {
  readonly #key: Buffer;
  readonly #base: string;

  constructor(key: Buffer, publicUrl: string) {
    this.#key = key;
    this.#base = new URL(CHALLENGE_RELAY_PATH, publicUrl).toString();
  }

  url(form: ChallengeForm): string {
    const f = Buffer.from(JSON.stringify({ a: form.action, f: form.fields })).toString('base64url');
    if (f.length > MAX_ENCODED) throw new RangeError(`3-D Secure form of ${f.length} characters, above ${MAX_ENCODED}`);
    return `${this.#base}?f=${f}&s=${this.#sign(f)}`;
  }

  /** The form a URL of ours carries; undefined when it was not sealed here or is not a form. */
  open(f: unknown, s: unknown): ChallengeForm | undefined {
    if (typeof f !== 'string' || typeof s !== 'string' || f.length > MAX_ENCODED || !/^[A-Za-z0-9_-]+$/.test(f)) return undefined;
    const expected = Buffer.from(this.#sign(f));
    const given = Buffer.from(s);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const parsed = JSON.parse(Buffer.from(f, 'base64url').toString('utf8')) as { a?: unknown; f?: unknown };
      if (typeof parsed.a !== 'string' || !/^https?:\/\//.test(parsed.a) || typeof parsed.f !== 'object' || parsed.f === null) return undefined;
      const fields = Object.entries(parsed.f as Record<string, unknown>);
      if (!fields.every(([, v]) => typeof v === 'string')) return undefined;
      return { action: parsed.a, fields: Object.fromEntries(fields) as Record<string, string> };
    } catch {
      return undefined;
    }
  }

  #sign(f: string): string {
    return createHmac('sha256', this.#key).update(f).digest('base64url');
  }
}
