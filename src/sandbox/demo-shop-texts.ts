import { Catalogue, perLanguage, type KeyOf } from '../i18n/catalogue.ts';
import de from '../i18n/catalogues/demo-shop/de.json' with { type: 'json' };
import en from '../i18n/catalogues/demo-shop/en.json' with { type: 'json' };
import es from '../i18n/catalogues/demo-shop/es.json' with { type: 'json' };
import fr from '../i18n/catalogues/demo-shop/fr.json' with { type: 'json' };
import it from '../i18n/catalogues/demo-shop/it.json' with { type: 'json' };
import nl from '../i18n/catalogues/demo-shop/nl.json' with { type: 'json' };
import type { Lang } from '../i18n/lang.ts';

/**
 * The sandbox demo shop's words (docs/front-end.md), from their catalogue
 * (`src/i18n/catalogues/demo-shop/<lang>.json`), in the six languages: its page, the product it
 * sells, and what its script says as the payment goes. The script's messages travel to the
 * browser as the catalogue has them (`data-texts`), where src/sandbox/assets/demo-shop.js fills in
 * their `{uid}`, `{id}`…: test/unit/i18n.test.ts checks they hold nothing but such placeholders.
 */
const CATALOGUES = { de, en, es, fr, it, nl };
const WORDS = new Catalogue<KeyOf<typeof en>>('demo-shop', CATALOGUES);

/** The languages the demo shop speaks: the six. */
export const DEMO_SHOP_LANGS: readonly Lang[] = WORDS.langs;

function texts(lang: Lang) {
  return { ...(WORDS.fixed(lang) as Omit<typeof en, 'script'>), script: CATALOGUES[WORDS.speaks(lang)].script };
}

/** The demo shop's words by language, each built on its first page. */
export const DEMO_SHOP_TEXT = perLanguage(texts);
