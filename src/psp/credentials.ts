import type { ConnectorDefinition, CredentialField, PspEnvironment } from './definition.ts';

/** A problem with a PSP account's input, naming its field (`credentials.<name>`, `endpoint_url`, ...). */
export interface FieldProblem {
  field: string;
  message: string;
}

const MAX_VALUE = 4096;

/**
 * Checks credentials against the connector's credential kind: every required field present, no
 * unknown field, each value a non-empty string matching its pattern / enum, then the definition's
 * own cross-field rules. Messages never quote a value (they may be secrets).
 */
export function validateCredentials(def: ConnectorDefinition, credentials: Readonly<Record<string, unknown>>, environment: PspEnvironment): FieldProblem | undefined {
  const known = new Set(def.credentialFields.map((f) => f.name));
  for (const name of Object.keys(credentials)) {
    if (!known.has(name)) return { field: `credentials.${name}`, message: `is not a credential of ${def.name} (expected: ${[...known].join(', ') || 'none'})` };
  }
  for (const f of def.credentialFields) {
    const value = credentials[f.name];
    const required = f.required && (!f.environments || f.environments.includes(environment));
    if (value === undefined || value === '') {
      if (required) return { field: `credentials.${f.name}`, message: `is required for ${def.name} (${environment})` };
      continue;
    }
    if (typeof value !== 'string') return { field: `credentials.${f.name}`, message: 'must be a string' };
    const problem = valueProblem(f, value, environment);
    if (problem) return { field: `credentials.${f.name}`, message: problem };
  }
  const strings = Object.fromEntries(Object.entries(credentials).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
  const extra = def.validate?.(strings, environment);
  if (extra) return { field: extra.field.startsWith('credentials.') ? extra.field : `credentials.${extra.field}`, message: extra.message };
  return undefined;
}

/**
 * What is wrong with one value of field `f`, or undefined: its length, characters, enum and
 * pattern, then the field's own parse (`check`: a key read as a key, a URL built), for a pattern
 * is not the check. Never quotes the value.
 */
function valueProblem(f: CredentialField, value: string, environment: PspEnvironment): string | undefined {
  if (value.length > MAX_VALUE) return `must be at most ${MAX_VALUE} characters`;
  if (/[\u0000-\u001f\u007f]/.test(value) && !f.secret) return 'must not contain control characters';
  if (f.enum && !f.enum.includes(value)) return `must be one of ${f.enum.join(', ')}`;
  if (f.pattern && !new RegExp(`^(?:${f.pattern})$`).test(value)) {
    // A secret's message never quotes the value, only what was expected.
    if (f.format) return `does not have the expected format: ${f.format}`;
    return f.secret ? 'does not have the expected format' : `must match ${f.pattern}`;
  }
  const unusable = f.check?.(value, environment);
  return unusable === undefined ? undefined : `cannot be used: ${unusable}`;
}

/**
 * The first stored credential of an account that its connector cannot use (one saved before its
 * field was parsed, or written by other means): the rules of {@link validateCredentials} on each
 * value present, without the required and cross-field ones. Undefined when every one can be used.
 * The back office shows such an account as needing attention; its notifications never answer 500.
 */
export function unusableCredential(def: ConnectorDefinition, credentials: Readonly<Record<string, string>>, environment: PspEnvironment): FieldProblem | undefined {
  for (const f of def.credentialFields) {
    const value = credentials[f.name];
    if (value === undefined || value === '') continue;
    const problem = typeof value === 'string' ? valueProblem(f, value, environment) : 'must be a string';
    if (problem) return { field: `credentials.${f.name}`, message: problem };
  }
  return undefined;
}

/** How a secret reads back: `…` and its last 4 characters (all of it hidden when shorter than 8). */
function maskSecret(value: string): string {
  return value.length >= 8 ? `…${value.slice(-4)}` : '…';
}

/** The credentials as responses show them: secret fields masked, the others as saved. */
export function maskedCredentials(def: ConnectorDefinition | undefined, credentials: Readonly<Record<string, string>>): Record<string, string> {
  const secret = new Set(def ? def.credentialFields.filter((f) => f.secret).map((f) => f.name) : Object.keys(credentials));
  return Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, secret.has(k) ? maskSecret(v) : v]));
}
