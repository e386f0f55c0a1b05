// Query parameters that can carry credentials: trigger_capture's `signature` JWT above all.
const SECRET_PARAMS = /^(signature|token|access_token|api_secret|client_secret|password|secret)$/i;

/** The URL as it may be logged: values of credential-bearing query parameters replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (SECRET_PARAMS.test(key)) {
      params.set(key, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}
