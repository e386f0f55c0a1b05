import type { PspAccountOutcome } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import { ApiError, notFound } from '../../../errors.ts';

/** A save's outcome (create, change, check again) as the API answers it: the account, or the error to throw. */
export function answer(outcome: PspAccountOutcome) {
  switch (outcome.kind) {
    case 'ok':
      return outcome.account;
    case 'invalid':
      return new ApiError(400, 'invalid_request', `field ${outcome.field} ${outcome.message}`);
    case 'rejected':
      return new ApiError(422, 'psp_credentials_rejected', outcome.message);
    case 'unreachable':
      return new ApiError(502, 'psp_unreachable', 'the PSP could not be reached to check the credentials; nothing was saved (retry, or save with ?verify=false)');
    case 'not_found':
      return notFound('PSP account');
  }
}
