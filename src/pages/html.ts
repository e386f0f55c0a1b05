/** Escapes text for HTML element content and quoted attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Our pages load nothing from elsewhere and run no script of their own yet. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'";

const STYLE = `
  body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2433}
  main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem}
  .card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:1rem}
  h1{font-size:1.4rem;margin:.2rem 0}
  .merchant{color:#5b6475;font-size:.95rem}
  .amount{font-size:1.8rem;font-weight:700;margin:.5rem 0}
  .muted{color:#5b6475}
  img.picture{max-width:100%;border-radius:8px}
  table{width:100%;border-collapse:collapse}td{padding:.25rem 0}td.num{text-align:right}
  .state{display:inline-block;padding:.1rem .6rem;border-radius:999px;background:#eef1f6;font-size:.85rem}`;

/** A complete mobile-first page in `lang`. */
export function layout(lang: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="${esc(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}
