import { html } from '../html/html.ts';
import { LOCALE, type Lang } from '../i18n/lang.ts';
import type { InvalidRequestMessage } from '../sdk/pledg-protocol.ts';
import { originOf, PROTOCOL_VERSION } from '../sdk/protocol.ts';
import { frameScript, layout, type FrameData } from './html.ts';
import { TEXT } from './texts.ts';

/**
 * Inside the Pledg script's iframe (`embed=1` with `parent_origin`), the refusal is also posted to
 * that origin (assets/result.js), so the script closes the frame and calls `onError`
 * (docs/front-end.md#the-pledg-script-plugins-of-the-original-provider). The origin is the
 * caller's claim, unverified: the message carries only the sentence this page shows anyway.
 */
function refusalFrame(parentOrigin: string | undefined, detail: string): FrameData | undefined {
  const target = originOf(parentOrigin);
  if (!target) return undefined;
  const message: InvalidRequestMessage = { chipin: PROTOCOL_VERSION, type: 'chipin:invalid-request', message: detail };
  return { target, purchase_uid: '', embed: false, message };
}

/**
 * The pages of the direct call of the front when no checkout follows (docs/plugin-integration.md):
 * a refused request (the shopper reads what to do; the shop's developer which setting is wrong,
 * in English as every API message, folded under "For the shop's developers" so that a shopper is
 * not handed a developer's sentence), and a reference already paid.
 */
export function directRefusedPage(lang: Lang, detail: string, parentOrigin?: string): string {
  const t = TEXT[lang];
  const frame = refusalFrame(parentOrigin, detail);
  return layout(
    LOCALE[lang],
    t.directRefusedTitle,
    html`${frameScript(frame)}<section class="card"><h1>${t.directRefusedTitle}</h1><p>${t.directRefused}</p><details class="muted"><summary>${t.directRefusedDetail}</summary><p><code lang="en" id="refusal">${detail}</code></p></details></section>`,
    frame ? '/assets/result.js' : undefined,
  ).toString();
}

export function directPaidPage(lang: Lang, parentOrigin?: string): string {
  const t = TEXT[lang];
  const frame = refusalFrame(parentOrigin, 'this reference is already paid');
  return layout(
    LOCALE[lang],
    t.directPaidTitle,
    html`${frameScript(frame)}<section class="card"><h1>${t.directPaidTitle}</h1><p>${t.directPaid}</p></section>`,
    frame ? '/assets/result.js' : undefined,
  ).toString();
}
