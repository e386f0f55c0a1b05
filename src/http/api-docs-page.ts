import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

/**
 * The API reference at `/docs` (Swagger UI, served by `@fastify/swagger-ui` from our own
 * process, no CDN). Its policy is ours rather than the plugin's default: only our own scripts,
 * styles, fonts and calls (the plugin's allowed any `https:` style and font, the public
 * validator's images, and upgraded every request to https, which broke the page on a sandbox
 * served over http), never framed (docs/security.md#content-security-policy).
 */
const API_DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Chipin's mark as the tab's icon, instead of the framework's. */
const FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e79"/><text x="16" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff" text-anchor="middle">C</text></svg>',
);

/**
 * Swagger UI's base layout: no top bar, so neither the framework's logo nor its "Explore" box
 * (which loads any URL's document into the page); the page opens on the document's own title,
 * Chipin, and the tab says "Chipin API reference". The standalone layout's top bar also
 * rendered the framework's logo as an inline SVG with a `<style>` element, which the policy
 * above refuses.
 */
export const API_DOCS_UI: FastifySwaggerUiOptions = {
  routePrefix: '/docs',
  staticCSP: API_DOCS_CSP,
  uiConfig: { deepLinking: true, layout: 'BaseLayout' },
  theme: {
    title: 'Chipin API reference',
    favicon: [{ filename: 'chipin.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON }],
  },
};
