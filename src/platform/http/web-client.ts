import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DOCS_PATH } from './openapi.js';
import { hasBackendPrefix } from './prefix.js';
import { createRenderedPages, type PageCacheOutcome, type PageKind } from './rendered-pages.js';
import {
  acceptedEncodings,
  contentTypeOf,
  etagOf,
  isCompressible,
  openEncoded,
  openInside,
  type Encoding,
  type OpenFile,
} from './static-files.js';

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

/** An active tenant's display name, or undefined (unknown, inactive, or not readable now). */
export type TenantNames = (tenantId: number) => Promise<string | undefined>;

/** Whose page it is, as index.html is served for a tenant's path. */
export interface PageTenant {
  id: number;
  /** Its display name when known: in the first paint's title and header (issue 38). */
  nombre?: string | undefined;
}

export interface WebClient {
  readonly dir: string;
  /**
   * Answers a request no route matched when it is the web client's: a GET or HEAD of one of its
   * files, of `/config.json`, or of a client route (a page the browser asks for as text/html),
   * which is index.html. Returns false for anything else, which stays the API's 404.
   */
  readonly serve: (
    request: FastifyRequest,
    reply: FastifyReply,
    /**
     * Whose page it is: a tenant's page carries its preload and name only when this names the
     * tenant; any other id gets the shared page of no tenant.
     */
    names: TenantNames,
  ) => Promise<boolean>;
}

/**
 * The business's console (docs/web.md "The business's console"): its own page of the build,
 * `comercio/index.html`, for `/comercio` and every path under it (its views are client routes).
 */
const CONSOLE_PAGE = '/comercio/index.html';

function isConsolePath(pathname: string): boolean {
  return pathname === '/comercio' || pathname.startsWith('/comercio/');
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
    // The logo and favicon come from the API (GET /portal/empresas/{id}/logo), wherever it is.
    `img-src 'self' data: blob:${apiOrigin ? ` ${apiOrigin}` : ''}`,
    "font-src 'self' data:",
    `connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ''}`,
    "frame-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * The tenant id of a portal page, as the client reads it, or undefined: `/e/{tenant}/...`, or the
 * gateways' return address, `/pagos/resultado?...&tenant_id={tenant}` (docs/payments.md "The
 * result page without a session"), whose page shows the tenant's brand at once too.
 */
export function tenantOfPath(pathname: string, search = ''): number | undefined {
  const match =
    /^\/e\/([1-9]\d{0,9})(?:\/|$)/.exec(pathname) ??
    (pathname === '/pagos/resultado'
      ? /^([1-9]\d{0,9})$/.exec(new URLSearchParams(search).get('tenant_id') ?? '')
      : null);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id <= 2_147_483_647 ? id : undefined;
}

/** The result page and the pay-link page: what they show comes from a token, not the address. */
export function isTokenPage(pathname: string): boolean {
  return pathname === '/pagos/resultado' || /^\/e\/[1-9]\d{0,9}\/pagar\/?$/.test(pathname);
}

/** Safe in an attribute's double quotes and in text: what a tenant's name may hold never is markup. */
function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

/** Where the built index.html lets the API add to its `<head>` (web/index.html has it). */
export const HEAD_MARKER = '<!-- portal:head -->';

/**
 * index.html as this API serves it, when the build holds HEAD_MARKER: the run-time settings in
 * a JSON data block (a script that never runs, so the CSP stays `script-src 'self'`), read by
 * the client instead of asking `config.json` (a round trip less on a slow link); on a tenant's
 * page, a preload of the tenant's public data (GET /portal/empresas/{id}), which the page needs
 * first, fetched while the scripts load. Without the marker the file goes out as it is; a static
 * host serves it as it is too, and the client then reads `config.json`.
 */
export function renderIndex(
  template: string,
  settings: WebClientSettings,
  tenant?: PageTenant,
): string {
  if (!template.includes(HEAD_MARKER)) return template;
  const nombre = tenant?.nombre;
  const config =
    nombre === undefined ? settings : { ...settings, empresa: { id: tenant?.id, nombre } };
  // `<` escaped so the JSON can never close the element.
  const json = JSON.stringify(config).replaceAll('<', '\\u003c');
  const preload =
    tenant === undefined
      ? ''
      : `<link rel="preload" as="fetch" crossorigin="use-credentials" href="${escapeHtml(
          `${settings.apiBaseUrl}/portal/empresas/${tenant.id}`,
        )}" />`;
  let html = template.replace(
    HEAD_MARKER,
    `${preload}<script type="application/json" id="portal-config">${json}</script>`,
  );
  if (nombre !== undefined) {
    // The first paint names the business, not "Portal de clientes", before any script runs or
    // the tenant's data arrives (a slow link's first seconds); the client keeps the name.
    const text = escapeHtml(nombre);
    html = html
      .replace(/<title>[^<]*<\/title>/, () => `<title>${text}</title>`)
      .replace(
        /(<p class="brand">)[^<]*(<\/p>)/,
        (_match, open: string, close: string) => `${open}${text}${close}`,
      );
  }
  return html;
}

/** Digests of the tenants' names, made once per name rather than on every page served. */
const nameTags = new Map<string, string>();
const NAME_TAGS_KEPT = 10_000;

/** A short digest of a tenant's name, for the page's cache key and ETag. */
function nameTag(nombre: string): string {
  let tag = nameTags.get(nombre);
  if (tag === undefined) {
    tag = createHash('sha256').update(nombre).digest('base64url').slice(0, 10);
    // Names come from the registry (a few hundred tenants): a bound, not an eviction policy.
    if (nameTags.size >= NAME_TAGS_KEPT) nameTags.clear();
    nameTags.set(nombre, tag);
  }
  return tag;
}

function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br'
    ? brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } })
    : gzipped(body, { level: 9 });
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
  config: {
    /** Where the built client is; `required` when the operator named it (PORTAL_WEB_DIR). */
    webClient: { readonly dir: string; readonly required: boolean } | undefined;
    /** The API base URL the client is told (PORTAL_WEB_API_URL, or the public prefix). */
    webApiUrl: string;
  },
  options: {
    /** Told each page served, by cache and outcome (`portal_web_pages_total`). */
    observePage?: ((kind: PageKind, outcome: PageCacheOutcome) => void) | undefined;
  } = {},
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
    /** The original's path, when `file` is its precompressed copy in `encoding`. */
    encoded?: { original: string; encoding: Encoding | undefined },
  ): void {
    const type = contentTypeOf(encoded?.original ?? file.path);
    const encoding = encoded?.encoding;
    const etag = etagOf(file.stats, encoding);
    void reply
      .header('cache-control', cacheControl)
      .header('etag', etag)
      .header('last-modified', file.stats.mtime.toUTCString());
    if (isCompressible(type)) void reply.header('vary', 'accept-encoding');
    if (encoding) void reply.header('content-encoding', encoding);
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

  // Known tenants' pages by build, tenant, name and coding (64: a few dozen tenants' worth), and
  // apart from them the few pages of no tenant, which every made-up id gets.
  const rendered = createRenderedPages({
    tenantPages: 64,
    sharedPages: 8,
    observe: options.observePage,
  });

  return {
    dir: root,
    async serve(request, reply, names) {
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
      const accepted = acceptedEncodings(request.headers['accept-encoding']);
      const isIndex = pathname === '/' || pathname === '/index.html';
      const isConsole = isConsolePath(pathname);
      const isPage = isIndex || pathname === CONSOLE_PAGE || pathname === '/comercio/';
      const found = isPage ? undefined : await openEncoded(root, pathname, accepted);
      if (found) {
        const hashed = pathname.startsWith(HASHED_ASSETS) && !found.original.endsWith('.html');
        sendFile(request, reply, found.file, hashed ? IMMUTABLE : REVALIDATE, found);
        return true;
      }
      // A client route (`/e/1/deudas`, `/pagos/resultado`): the page, whose script routes it.
      if (!isPage && !acceptsHtml(request)) return false;
      // The console's page carries the settings, never a tenant: its tenant is its token's.
      if (isConsole) return sendIndex(request, reply, undefined, accepted[0], CONSOLE_PAGE);
      const search = request.url.slice(pathname.length);
      const tenantId = tenantOfPath(pathname, search);
      // An id no active tenant has (or one not readable now) gets the shared page of no tenant:
      // its client asks for the tenant and says "No encontramos esta empresa" (docs/web.md). A
      // made-up id then costs what a known tenant's page does, and takes no room of theirs.
      const nombre =
        tenantId === undefined ? undefined : await names(tenantId).catch(() => undefined);
      // A page whose credential is a token the server does not read here (the result page's,
      // the pay link's in the fragment) never names a business on its first paint: the address
      // could name another business than the token's (a forged proof of payment). Its client
      // brands it once the token's own tenant is known, and refuses a mismatch.
      const tenant =
        tenantId === undefined || nombre === undefined
          ? undefined
          : { id: tenantId, nombre: isTokenPage(pathname) ? undefined : nombre };
      return sendIndex(request, reply, tenant, accepted[0]);
    },
  };

  async function sendIndex(
    request: FastifyRequest,
    reply: FastifyReply,
    tenant: PageTenant | undefined,
    encoding: Encoding | undefined,
    page = '/index.html',
  ): Promise<boolean> {
    const index = await openInside(root, page);
    if (!index) return false; // the build was removed while running
    const { stats } = index;
    // The name is part of the page: a renamed tenant is another page (and another ETag).
    const named = tenant?.nombre === undefined ? '' : nameTag(tenant.nombre);
    const key = `${page}|${etagOf(stats)}|${tenant?.id ?? ''}|${named}|${encoding ?? ''}`;
    let body: Buffer;
    try {
      body = await rendered.get(tenant ? 'tenant' : 'shared', key, async () => {
        const template = await index.handle.readFile('utf8');
        const html = Buffer.from(renderIndex(template, { apiBaseUrl: config.webApiUrl }, tenant));
        return encoding ? compress(html, encoding) : html;
      });
    } finally {
      await index.handle.close();
    }
    const etag = `W/"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}${page === CONSOLE_PAGE ? '-c' : ''}-t${tenant?.id ?? 0}${named ? `-${named}` : ''}${encoding ? `-${encoding}` : ''}"`;
    void reply
      .header('cache-control', REVALIDATE)
      .header('etag', etag)
      .header('last-modified', stats.mtime.toUTCString())
      .header('vary', 'accept-encoding')
      .header('content-security-policy', csp)
      .type('text/html; charset=utf-8');
    if (encoding) void reply.header('content-encoding', encoding);
    if (matchesEtag(request, etag)) {
      void reply.code(304).send();
      return true;
    }
    void reply.header('content-length', body.length);
    void reply.send(request.method === 'HEAD' ? undefined : body);
    return true;
  }
}
