import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';

/*
 * A page on another origin than the API, as a tenant hosting the built client itself would have
 * it: a tiny static server for web/dist (or for a few given files) whose config.json points the
 * client at the API. It listens on 127.0.0.1. Addressed as http://127.0.0.1:<port> (`site:
 * 'same'`, the default) the page is cross-origin but same-site to the API on
 * http://127.0.0.1:<port>, as portal.example.com is to api.example.com; addressed as
 * http://localhost:<port> (`site: 'cross'`) it is cross-site, where browsers that block
 * third-party cookies (Chromium's default profile here) keep no refresh cookie (docs/web.md).
 */

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

export interface SecondOriginOptions {
  /** Same site as an API on 127.0.0.1 (default) or another site (localhost). */
  site?: 'same' | 'cross';
  /** A folder to serve (web/dist); paths without an extension get its index.html (client routes). */
  root?: string;
  /** Served as /config.json, over any config.json of `root`. */
  config?: unknown;
  /** Fixed pages by path, e.g. `{ '/blank.html': '<!doctype html>...' }`. */
  files?: Record<string, string>;
}

export interface SecondOrigin {
  /** `http://127.0.0.1:<port>` or `http://localhost:<port>`: for PORTAL_ALLOWED_ORIGIN. */
  readonly url: string;
  close(): Promise<void>;
}

function typeOf(file: string): string {
  return TYPES[path.extname(file)] ?? 'application/octet-stream';
}

export async function startSecondOrigin(options: SecondOriginOptions): Promise<SecondOrigin> {
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const send = (status: number, type: string, body: string | Buffer) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    const fixed = options.files?.[pathname];
    if (fixed !== undefined) return send(200, typeOf(pathname), fixed);
    if (pathname === '/config.json' && options.config !== undefined) {
      return send(200, TYPES['.json'] ?? '', JSON.stringify(options.config));
    }
    if (options.root === undefined) return send(404, 'text/plain', 'not found');
    const root = path.resolve(options.root);
    const wanted = path.extname(pathname) === '' ? '/index.html' : pathname;
    const file = path.join(root, path.normalize(wanted));
    if (!file.startsWith(root + path.sep)) return send(404, 'text/plain', 'not found');
    readFile(file).then(
      (body) => send(200, typeOf(file), body),
      () => send(404, 'text/plain', 'not found'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('static server not on TCP');
  return {
    url: `http://${options.site === 'cross' ? 'localhost' : '127.0.0.1'}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
