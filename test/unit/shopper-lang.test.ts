import { describe, expect, it } from 'vitest';
import { messageLang, shopperLang, type LanguageClues } from '../../src/i18n/shopper-lang.ts';

/** The one rule of a shopper's language (docs/hosted-payment.md#language), on pages and in messages alike. */
describe('the language a shopper gets', () => {
  it('is the first known of: the pick on the page, the merchant’s, the last page’s, the browser’s, the leader’s for a friend, the account’s; else English', () => {
    const cases: [string, LanguageClues, string][] = [
      ['nothing known', {}, 'en'],
      ['the account’s alone', { account: 'it' }, 'it'],
      ['the leader’s page, for a friend who used none, before the account’s', { inviter: 'fr', account: 'it' }, 'fr'],
      ['the browser’s before the leader’s page', { browser: 'de-DE,de;q=0.9', inviter: 'fr', account: 'it' }, 'de'],
      ['the browser’s by its weights', { browser: 'pt-BR, nl;q=0.8, es;q=0.9' }, 'es'],
      ['a browser in none of the six languages says nothing', { browser: 'pt-BR, ja', account: 'nl' }, 'nl'],
      ['the last page’s before the browser’s', { lastPage: 'es', browser: 'de' }, 'es'],
      ['the merchant’s before the last page’s', { merchant: 'nl_NL', lastPage: 'es', browser: 'de' }, 'nl'],
      ['the merchant’s in any spelling', { merchant: 'de_DE_formal' }, 'de'],
      ['a merchant’s language none of the six: the next clue', { merchant: 'pt_BR', lastPage: 'it' }, 'it'],
      ['the pick on the page before everything', { asked: 'fr', merchant: 'es_ES', lastPage: 'de', browser: 'it', account: 'nl' }, 'fr'],
    ];
    for (const [what, clues, lang] of cases) expect(shopperLang(clues), what).toBe(lang);
  });

  it('for a message: the merchant’s when set (a default is not), else the recipient’s own last page, a friend’s else the leader’s, else the account’s', () => {
    const unset = { language: 'en_GB', languageSet: false, pageLanguage: null };
    const cases: [string, Parameters<typeof messageLang>, string][] = [
      ['a purchase without a language and no page used: the account’s', [unset, 'fr'], 'fr'],
      ['…not the default it keeps as `language`', [unset, undefined], 'en'],
      ['the leader paid on a French page', [{ ...unset, pageLanguage: 'fr' }, 'it'], 'fr'],
      ['the merchant set Spanish: Spanish, whatever page was used', [{ language: 'es_ES', languageSet: true, pageLanguage: 'fr' }, 'it'], 'es'],
      ['a friend who used no page: the leader’s page', [{ ...unset, pageLanguage: 'fr' }, 'it', { pageLanguage: null }], 'fr'],
      ['a friend gets their own: their page in German', [{ ...unset, pageLanguage: 'fr' }, 'it', { pageLanguage: 'de' }], 'de'],
      ['a friend, the merchant set Dutch', [{ language: 'nl_NL', languageSet: true, pageLanguage: 'fr' }, 'it', { pageLanguage: 'de' }], 'nl'],
      ['a friend, no page used by anyone: the account’s', [unset, 'it', { pageLanguage: null }], 'it'],
    ];
    for (const [what, args, lang] of cases) expect(messageLang(...args), what).toBe(lang);
  });
});
