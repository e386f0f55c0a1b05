import type { ChallengeReturn } from '../psp/connector.ts';

/**
 * What a 3-D Secure challenge sent back with the shopper (docs/psp-connectors.md#the-return-from-3-d-secure):
 * the issuer's posted form, or the query of the PSP's redirect, without Chipin's own parameters.
 * Bounded so that a hostile request hands the connector no more than a real return would carry;
 * a field given twice, or past the bounds, is left out rather than refused: the PSP's answer
 * decides, and the page always resumes from the PSP's record.
 */
export function challengeReturnOf(fields: unknown, ours: readonly string[]): ChallengeReturn {
  const out: Record<string, string> = {};
  if (typeof fields !== 'object' || fields === null) return out;
  let kept = 0;
  for (const [name, value] of Object.entries(fields)) {
    if (ours.includes(name) || typeof value !== 'string') continue;
    if (name.length > MAX_NAME || value.length > MAX_VALUE || kept === MAX_FIELDS) continue;
    out[name] = value;
    kept++;
  }
  return out;
}

/** A 3-D Secure 1 `PaRes` runs to a few kilobytes; Adyen's `redirectResult` to about two. */
const MAX_VALUE = 32 * 1024;
const MAX_NAME = 64;
const MAX_FIELDS = 16;

/** The body limit of the return routes' form POST: the fields above, form-encoded. */
export const CHALLENGE_RETURN_BODY_LIMIT = 128 * 1024;
