import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { DOCS_PATH } from './openapi.js';
import { hasBackendPrefix } from './prefix.js';
import { contentTypeOf, etagOf, openInside, type OpenFile } from './static-files.js';

/**
 * The API's own namespaces: a path under one that no route matched is the API's 404 (JSON),
 * never the web client's page, and so is anything under `/backend`.
 */
const API_PATHS = ['/portal', '/qz', DOCS_PATH, '/healthz', '/readyz', '/metrics'];

/** Vite writes content-hashed names under `assets/`: a new build never reuses one. */
const HASHED_ASSETS = '/assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Stored but revalidated each time (ETag), so a new build shows on the next load. */
const REVALIDATE = 'no-cache';

/** What the web client asks on start (docs/web.md): where the API is. */
export interface WebClientSettings {
  apiBaseUrl: string;
}

export interface WebClient {
  readonly dir: string;
  /**
   * Answers a request no route matched when it is the web client's: a GET or HEAD of one of its
   * files, of `/config.json`, or of a client route (a page the browser asks for as text/html),
   * which is index.html. Returns false for anything else, which stays the API's 404.
   */
  readonly serve: (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;
}

function isApiPath(pathname: string): boolean {
  return API_PATHS.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

function acceptsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').toLowerCase().includes('text/html');
}

/**
 * The pages' policy: a Vite build loads only its own scripts and styles (no inline code), and the
 * page talks to its own origin, or to the API's when config.json names another one.
 */
export function webClientCsp(apiBaseUrl: string): string {
  const apiOrigin = /^https?:\/\//i.test(apiBaseUrl) ? new URL(apiBaseUrl).origin : undefined;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ''}`,
    "frame-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function matchesEtag(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (header === undefined) return false;
  return header.split(',').some((candidate) => ['*', etag].includes(candidate.trim()));
}

/**
 * The built web client of `config.webClient`, or undefined when there is none to serve: not
 * configured, or development's default `web/dist` not built. A directory named by
 * PORTAL_WEB_DIR without index.html stops the start instead of serving 404s.
 */
export async function openWebClient(
  config: Pick<Config, 'webClient' | 'webApiUrl'>,
): Promise<WebClient | undefined> {
  const setting = config.webClient;
  if (!setting) return undefined;
  let root: string;
  try {
    root = await realpath(path.resolve(setting.dir));
    if (!(await stat(path.join(root, 'index.html'))).isFile()) throw new Error('not a file');
  } catch (error) {
    if (!setting.required) return undefined;
    throw new Error(
      `PORTAL_WEB_DIR=${setting.dir} holds no index.html: build the web client there or unset it`,
      { cause: error },
    );
  }

  const csp = webClientCsp(config.webApiUrl);
  const settings = JSON.stringify({ apiBaseUrl: config.webApiUrl } satisfies WebClientSettings);

  function sendFile(
    request: FastifyRequest,
    reply: FastifyReply,
    file: OpenFile,
    cacheControl: string,
  ): void {
    const type = contentTypeOf(file.path);
    const etag = etagOf(file.stats);
    void reply
      .header('cache-control', cacheControl)
      .header('etag', etag)
      .header('last-modified', file.stats.mtime.toUTCString());
    if (type.startsWith('text/html')) void reply.header('content-security-policy', csp);
    if (matchesEtag(request, etag) || request.method === 'HEAD') {
      void file.handle.close();
      if (request.method !== 'HEAD') void reply.code(304).send();
      else void reply.type(type).header('content-length', file.stats.size).send();
      return;
    }
    void reply
      .type(type)
      .header('content-length', file.stats.size)
      .send(file.handle.createReadStream());
  }

  return {
    dir: root,
    async serve(request, reply) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return false;
      if (hasBackendPrefix(request.originalUrl)) return false;
      const pathname = request.url.split('?')[0] ?? '/';
      if (isApiPath(pathname)) return false;

      if (pathname === '/config.json') {
        // Generated, not read from the folder: it follows this deployment's settings.
        void reply.header('cache-control', REVALIDATE).type('application/json; charset=utf-8');
        void reply.send(settings);
        return true;
      }
      const file = pathname === '/' ? undefined : await openInside(root, pathname);
      if (file) {
        const hashed = pathname.startsWith(HASHED_ASSETS) && !file.path.endsWith('.html');
        sendFile(request, reply, file, hashed ? IMMUTABLE : REVALIDATE);
        return true;
      }
      // A client route (`/e/1/deudas`, `/pagos/resultado`): the page, whose script routes it.
      if (pathname !== '/' && !acceptsHtml(request)) return false;
      const index = await openInside(root, '/index.html');
      if (!index) return false; // the build was removed while running
      sendFile(request, reply, index, REVALIDATE);
      return true;
    },
  };
}
