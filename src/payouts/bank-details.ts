import { electronicFormatIBAN, extractBIC, isSEPACountry, validateBIC, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import { maskIban, sepaText } from '../domain/payouts.ts';

/**
 * A merchant's payout bank details, its "Payment params" (docs/money-operations.md#bank-details):
 * the account holder's name, IBAN and BIC, checked with `ibantools` (the IBAN's country format and
 * check digits, the BIC's format and country) and kept sealed at rest.
 */
export interface BankDetails {
  holderName: string;
  /** Electronic form: no spaces, upper case. */
  iban: string;
  /** 8 or 11 characters, upper case. */
  bic: string;
}

/** What the back office shows of them: the IBAN masked, never whole. */
export interface BankDetailsView {
  holder_name: string;
  iban_masked: string;
  bic: string;
  updated_at: string;
  /** Until when payouts are held after the IBAN was replaced (the cooling-off); null: not held. */
  payouts_held_until: string | null;
}

/**
 * Which rule typed bank details broke, as data: the API's `message` says it in English, the back
 * office's page in its own language (`payouts.problem` in the back office's catalogue).
 */
export type BankDetailsProblem =
  | { rule: 'holder_required' }
  | { rule: 'holder_too_long'; max: number }
  | { rule: 'holder_control_characters' }
  | { rule: 'holder_not_latin' }
  | { rule: 'iban_required' }
  | { rule: 'iban_country_code' }
  | { rule: 'iban_length' }
  | { rule: 'iban_format' }
  | { rule: 'iban_check_digits' }
  | { rule: 'iban_not_sepa'; country: string }
  | { rule: 'bic_required' }
  | { rule: 'bic_invalid' }
  | { rule: 'bic_other_country'; bicCountry: string; ibanCountry: string };

export type BankDetailsCheck = { ok: true; details: BankDetails } | { ok: false; field: 'holder_name' | 'iban' | 'bic'; message: string; problem: BankDetailsProblem };

/** Longest name a SEPA credit transfer carries (`Nm`, Max70Text). */
const HOLDER_NAME_MAX = 70;

/**
 * Territories whose banks use their own country code in the BIC but their parent country's IBAN
 * (the EPC's list of SEPA territories; the same list the `sepa` library checks a file against).
 */
const IBAN_TERRITORIES: Record<string, readonly string[]> = {
  FI: ['AX'],
  FR: ['GF', 'GP', 'MQ', 'RE', 'PF', 'TF', 'YT', 'NC', 'BL', 'MF', 'PM', 'WF'],
  GB: ['IM', 'JE', 'GG'],
};

/**
 * Checks typed bank details and answers them normalised (IBAN without spaces, upper case), or the
 * first field that is wrong with a message naming it. The IBAN must be of a SEPA country (the
 * euro payouts are SEPA credit transfers), the BIC of the IBAN's country.
 */
export function checkBankDetails(input: { holder_name?: unknown; iban?: unknown; bic?: unknown }): BankDetailsCheck {
  const holderName = typeof input.holder_name === 'string' ? input.holder_name.trim().replace(/\s+/g, ' ') : '';
  if (holderName === '')
    return {
      ok: false,
      field: 'holder_name',
      message: 'field holder_name is required: the name of the account holder, as the bank knows it',
      problem: { rule: 'holder_required' },
    };
  if (holderName.length > HOLDER_NAME_MAX)
    return {
      ok: false,
      field: 'holder_name',
      message: `field holder_name must be at most ${HOLDER_NAME_MAX} characters`,
      problem: { rule: 'holder_too_long', max: HOLDER_NAME_MAX },
    };
  if (/[\u0000-\u001f\u007f]/.test(holderName))
    return { ok: false, field: 'holder_name', message: 'field holder_name must not contain control characters', problem: { rule: 'holder_control_characters' } };
  if (!/[A-Za-z]/.test(sepaText(holderName, HOLDER_NAME_MAX)))
    return {
      ok: false,
      field: 'holder_name',
      message: 'field holder_name must be written in Latin letters: a SEPA transfer carries no others',
      problem: { rule: 'holder_not_latin' },
    };

  const typedIban = typeof input.iban === 'string' ? input.iban : '';
  const iban = electronicFormatIBAN(typedIban) ?? '';
  if (iban === '') return { ok: false, field: 'iban', message: 'field iban is required', problem: { rule: 'iban_required' } };
  const ibanCheck = validateIBAN(iban);
  if (!ibanCheck.valid) {
    const codes = ibanCheck.errorCodes;
    const [rule, why] = codes.includes(ValidationErrorsIBAN.NoIBANCountry)
      ? (['iban_country_code', 'its country code is not one IBANs use'] as const)
      : codes.includes(ValidationErrorsIBAN.WrongBBANLength)
        ? (['iban_length', 'it has the wrong length for its country'] as const)
        : codes.includes(ValidationErrorsIBAN.WrongBBANFormat)
          ? (['iban_format', 'its account number does not have its country’s format'] as const)
          : (['iban_check_digits', 'its check digits are wrong (a typing mistake?)'] as const);
    return { ok: false, field: 'iban', message: `field iban is not a valid IBAN: ${why}`, problem: { rule } };
  }
  const ibanCountry = iban.slice(0, 2);
  if (!isSEPACountry(ibanCountry))
    return {
      ok: false,
      field: 'iban',
      message: `field iban must be of a SEPA country (${ibanCountry} is not): payouts are SEPA credit transfers`,
      problem: { rule: 'iban_not_sepa', country: ibanCountry },
    };

  const bic = typeof input.bic === 'string' ? input.bic.replace(/\s+/g, '').toUpperCase() : '';
  if (bic === '') return { ok: false, field: 'bic', message: 'field bic is required', problem: { rule: 'bic_required' } };
  if (!validateBIC(bic).valid)
    return { ok: false, field: 'bic', message: 'field bic is not a valid BIC (8 or 11 characters: bank, country, location and branch codes)', problem: { rule: 'bic_invalid' } };
  const bicCountry = extractBIC(bic).countryCode ?? '';
  if (bicCountry !== ibanCountry && !(IBAN_TERRITORIES[ibanCountry] ?? []).includes(bicCountry))
    return {
      ok: false,
      field: 'bic',
      message: `field bic is of another country (${bicCountry}) than the IBAN (${ibanCountry})`,
      problem: { rule: 'bic_other_country', bicCountry, ibanCountry },
    };

  return { ok: true, details: { holderName, iban, bic } };
}

export function bankDetailsView(details: BankDetails, updatedAt: Date, heldUntil: Date | null): BankDetailsView {
  return {
    holder_name: details.holderName,
    iban_masked: maskIban(details.iban),
    bic: details.bic,
    updated_at: updatedAt.toISOString(),
    payouts_held_until: heldUntil?.toISOString() ?? null,
  };
}
