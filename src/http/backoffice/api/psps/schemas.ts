import { Type } from 'typebox';
import { TokenApiError } from '../../../routes/schemas.ts';

export const SECURITY = [{ apiKeyBasic: [] }];
export const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';

export const PspAccount = Type.Object(
  {
    id: Type.String({ examples: ['psa_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    psp: Type.String(),
    environment: Type.String({ enum: ['test', 'live'] }),
    label: Type.String(),
    endpoint_url: Type.Union([Type.String(), Type.Null()], { description: "Overrides the connector's base URL for this environment" }),
    credentials: Type.Record(Type.String(), Type.String(), { description: 'Secret fields read as `…` and their last 4 characters' }),
    verified_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the PSP last accepted the credentials' }),
    needs_attention: Type.Union(
      [Type.Object({ field: Type.String({ examples: ['credentials.public_key'] }), message: Type.String() }, { additionalProperties: false }), Type.Null()],
      {
        description:
          'A stored credential its connector cannot use (saved before it was parsed, or written by other means): the field and what it expected. Payments needing it fail and its notifications answer 503 until the credential is replaced; null when every credential parses',
      },
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'PspAccount' },
);

export const Credentials = Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 4096 }), {
  description: "The connector's credential fields (GET /api/backoffice/psps)",
});
export const Label = Type.String({ minLength: 1, maxLength: 100 });
export const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    "In production an https:// URL on one of the PSP's own hosts for the environment (another Lyra brand, Adyen live prefix), or on a host of the operator's PSP_ENDPOINT_ALLOWLIST (docs/security.md); in a sandbox deployment any https:// URL, or http://127.0.0.1 (local fakes)",
});
export const Verify = Type.Object({ verify: Type.Optional(Type.Boolean({ description: 'false skips the check call to the PSP' })) }, { additionalProperties: false });
export const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const SaveErrors = {
  400: { ...TokenApiError, description: 'Invalid input; the message names the field (`credentials.<name>`, `endpoint_url`, `psp`, `environment`)' },
  422: { ...TokenApiError, description: '`psp_credentials_rejected`: the PSP refused the credentials' },
  502: { ...TokenApiError, description: '`psp_unreachable`: the PSP could not be reached to check the credentials (nothing was saved)' },
};
