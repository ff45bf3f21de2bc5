import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, sep } from 'node:path';
import { rendererCspHeader, STYLE_NONCE_META } from '../../../shared/content-security-policy';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export interface UiFile {
  body: Buffer;
  headers: Record<string, string | number>;
  /** A page: served with its policy and a fresh style nonce in place of the one its build wrote. */
  page?: { buildNonce: string | null };
}

const NONCE_IN_PAGE = new RegExp(`<meta name="${STYLE_NONCE_META}" content="([^"]+)"`);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/**
 * Reads the built renderer once, keyed by URL path under `mount`: the build is small, a restart picks up a rebuild,
 * and a map lookup cannot be walked out of the folder.
 */
export function loadUiFiles(uiDir: string, mount: string): Map<string, UiFile> {
  const files = new Map<string, UiFile>();
  for (const path of filesUnder(uiDir)) {
    const name = relative(uiDir, path).split(sep).join('/');
    // Vite puts content-hashed names under assets/; everything else may change between builds.
    const cache = name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    const body = readFileSync(path);
    const type = CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
    files.set(mount + name, {
      body,
      headers: { 'content-type': type, 'content-length': body.length, 'cache-control': cache, ...SECURITY_HEADERS },
      page: type.startsWith('text/html') ? { buildNonce: NONCE_IN_PAGE.exec(body.toString('utf8'))?.[1] ?? null } : undefined,
    });
  }
  const index = files.get(`${mount}index.html`);
  if (!index) throw new Error(`No workbench UI in ${uiDir} (index.html is missing): build it with \`npm run build\``);
  files.set(mount, index);
  return files;
}

/** A page gets a nonce of its own, never stored, so a nonce seen once is no use to anyone later. */
function withFreshNonce(file: UiFile, buildNonce: string | null): UiFile {
  const nonce = randomBytes(18).toString('base64');
  const body = buildNonce ? Buffer.from(file.body.toString('utf8').replaceAll(buildNonce, nonce)) : file.body;
  return {
    body,
    headers: { ...file.headers, 'content-length': body.length, 'cache-control': 'no-store', 'content-security-policy': rendererCspHeader(nonce) },
  };
}

export function sendUiFile(req: IncomingMessage, res: ServerResponse, file: UiFile): void {
  const sent = file.page ? withFreshNonce(file, file.page.buildNonce) : file;
  res.writeHead(200, sent.headers);
  res.end(req.method === 'HEAD' ? undefined : sent.body);
}
