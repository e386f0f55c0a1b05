import de from '../i18n/catalogues/sdk/de.json' with { type: 'json' };
import en from '../i18n/catalogues/sdk/en.json' with { type: 'json' };
import es from '../i18n/catalogues/sdk/es.json' with { type: 'json' };
import fr from '../i18n/catalogues/sdk/fr.json' with { type: 'json' };
import it from '../i18n/catalogues/sdk/it.json' with { type: 'json' };
import nl from '../i18n/catalogues/sdk/nl.json' with { type: 'json' };
import { langOf } from '../i18n/lang.ts';

/** The few words a script built from src/sdk puts on the merchant's page: the frame's title, the close button's name, the dialog's. */
export type ScriptWords = typeof en;

const WORDS: Readonly<Record<ReturnType<typeof langOf>, ScriptWords>> = { de, en, es, fr, it, nl };

/**
 * The scripts' words (catalogue area `sdk`, docs/architecture.md#where-words-live) in `lang`, read
 * in any spelling the plugins send (`fr_FR`, `de-DE`, `nl_NL_formal`…), English for any other.
 * Its messages take no values, so the bundle carries the six JSON files as they are and no
 * message formatter (intl-messageformat would make the Pledg script four times its size:
 * docs/front-end.md#the-pledg-script-plugins-of-the-original-provider); test/unit/i18n.test.ts
 * checks that none of them needs one.
 */
export function scriptWords(lang: string | undefined): ScriptWords {
  return WORDS[langOf(lang)];
}
