/**
 * The renderer's Content-Security-Policy: no inline script, no eval, nothing from elsewhere; a style element only
 * with this page's nonce (the code editor injects its styles that way). The build puts it in index.html (Electron
 * loads a file, which has no headers); the engine also sends it as a header on /ui/, with a fresh nonce each time.
 */
export function rendererCsp(styleNonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The header form adds what a <meta> policy ignores. */
export const rendererCspHeader = (styleNonce: string) => `${rendererCsp(styleNonce)}; frame-ancestors 'none'`;

/** Where the page finds its style nonce: `<meta name="tokenbench-style-nonce" content="…">`. */
export const STYLE_NONCE_META = 'tokenbench-style-nonce';
