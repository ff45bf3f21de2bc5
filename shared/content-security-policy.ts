/**
 * The renderer's Content-Security-Policy: no inline script or style, no eval, nothing from elsewhere. The build puts
 * it in index.html (Electron loads a file, which has no headers); the engine also sends it as a header on /ui/.
 */
export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Header-only directives (a <meta> policy ignores them). */
export const RENDERER_CSP_HEADER = `${RENDERER_CSP}; frame-ancestors 'none'`;
