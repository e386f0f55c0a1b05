import { Catalogue, type KeyOf } from './catalogue.ts';
import de from './catalogues/credit/de.json' with { type: 'json' };
import en from './catalogues/credit/en.json' with { type: 'json' };
import es from './catalogues/credit/es.json' with { type: 'json' };
import fr from './catalogues/credit/fr.json' with { type: 'json' };
import it from './catalogues/credit/it.json' with { type: 'json' };
import nl from './catalogues/credit/nl.json' with { type: 'json' };

/**
 * The words of a credit's disclosure, in each country's legal terms, shown alike by the hosted
 * pages and the e-mails: the annual percentage rate's name (TAEG in French and Italian, TAE in
 * Spanish, effektiver Jahreszins in German, JKP in Dutch), the statutory warning where a country
 * words one (France's, verbatim; the Netherlands' "Let op! Geld lenen kost geld"), the lender and
 * the right of withdrawal. Each wording's source is named in docs/schedules.md#credit-mentions.
 */
export const CREDIT_WORDS = new Catalogue<KeyOf<typeof en>>('credit', { de, en, es, fr, it, nl });
