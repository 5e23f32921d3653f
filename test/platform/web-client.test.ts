import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment } from '../helpers/harness.js';

/*
 * The built web client served from the API's own origin (docs/web.md), against a folder laid out
 * as a Vite build: index.html, hashed assets, a public file, and things that must never be served.
 */

const INDEX =
  '<!doctype html><html lang="es-AR"><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="app"></div></body></html>';
const SCRIPT = 'console.log("portal");';
const STYLE = 'body{color:#222}';
const SECRET = 'DATABASE_URL=postgres://secret';
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

const env = useTestEnvironment();
let app: FastifyInstance;
let parent: string;
let dist: string;

beforeAll(async () => {
  // The folder beside dist/ holds what a traversal would be after.
  parent = await mkdtemp(path.join(tmpdir(), 'portal-web-'));
  dist = path.join(parent, 'dist');
  await mkdir(path.join(dist, 'assets', 'fonts'), { recursive: true });
  await writeFile(path.join(parent, 'secret.txt'), SECRET);
  await writeFile(path.join(dist, '.env'), SECRET);
  await writeFile(path.join(dist, 'index.html'), INDEX);
  await writeFile(path.join(dist, 'config.json'), '{"apiBaseUrl":"https://stale.example.com"}');
  await writeFile(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(path.join(dist, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  await writeFile(path.join(dist, 'assets', 'index-Ef56Gh78.css'), STYLE);
  await writeFile(path.join(dist, 'assets', 'fonts', 'inter-Zz99.woff2'), 'wOF2');
  app = await env.app({ PORTAL_WEB_DIR: dist });
});

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

function get(url: string, headers: Record<string, string> = {}, on = app) {
  const options: InjectOptions = { method: 'GET', url, headers };
  return on.inject(options);
}

function isIndex(response: { statusCode: number; body: string; headers: object }) {
  return response.statusCode === 200 && response.body === INDEX;
}

describe('files of the build', () => {
  it('/ is index.html: HTML, revalidated every time, with the pages’ CSP', async () => {
    const response = await get('/');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(INDEX);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    // The platform's headers are there too.
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['strict-transport-security']).toContain('max-age=31536000');
  });

  it('hashed assets are cached for a year, with their content type and no CSP', async () => {
    const cases = [
      ['/assets/index-Ab12Cd34.js', 'text/javascript; charset=utf-8', SCRIPT],
      ['/assets/index-Ef56Gh78.css', 'text/css; charset=utf-8', STYLE],
      ['/assets/fonts/inter-Zz99.woff2', 'font/woff2', 'wOF2'],
    ] as const;
    for (const [url, type, body] of cases) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toBe(body);
      expect(response.headers['content-type']).toBe(type);
      expect(response.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers['content-security-policy']).toBeUndefined();
    }
  });

  it('a file outside assets/ is revalidated; its ETag answers 304 when it has not changed', async () => {
    const response = await get('/favicon.svg');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/svg+xml');
    expect(response.headers['cache-control']).toBe('no-cache');
    const etag = String(response.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    const again = await get('/favicon.svg', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const index = await get('/', { 'if-none-match': String((await get('/')).headers.etag) });
    expect(index.statusCode).toBe(304);
  });

  it('HEAD answers the headers without the body', async () => {
    const response = await app.inject({ method: 'HEAD', url: '/assets/index-Ab12Cd34.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.body).toBe('');
  });

  it('a missing asset is the JSON 404, not the page (a script must not get HTML)', async () => {
    const response = await get('/assets/index-Missing0.js', { accept: '*/*' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });
});

describe('client routes', () => {
  it('a page the browser asks for (text/html) that is no file and no route is index.html', async () => {
    for (const url of ['/e/1/', '/e/1/deudas', '/e/1/pagos/historial?x=1', '/perfil']) {
      const response = await get(url, HTML);
      expect(isIndex(response), `${url}: ${response.statusCode}`).toBe(true);
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  it('the gateways’ return address /pagos/resultado is the web client’s page, not the API’s development one', async () => {
    const response = await get('/pagos/resultado?payment_id=12&estado=aprobado', HTML);
    expect(isIndex(response)).toBe(true);
    // Without the web client the API's own page stands in.
    const bare = await env.app();
    const standIn = await get('/pagos/resultado?payment_id=12&estado=aprobado', HTML, bare);
    expect(standIn.statusCode).toBe(200);
    expect(standIn.body).toContain('Pago aprobado');
  });

  it('the sandbox’s own checkout page still answers (a route, never the web client)', async () => {
    const response = await get(
      '/portal/sandbox/checkout/1/1/6f1c1a52-3c1e-4a8e-9d55-0b8f1d1f0a11',
      HTML,
    );
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'INVALID_SUCURSAL' });
  });

  it('API routes, docs, health and /backend are never shadowed, whatever the Accept header', async () => {
    const deudas = await get('/portal/deudas', HTML);
    expect(deudas.statusCode).toBe(401);
    expect(deudas.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await get('/healthz', HTML)).json()).toMatchObject({ data: { status: 'ok' } });
    const docs = await get('/docs/json', HTML);
    expect(docs.json()).toHaveProperty('openapi');
    for (const url of [
      '/portal/no-such-route',
      '/portal',
      '/docs/nope',
      '/qz/nope',
      '/metrics',
      '/readyz/x',
      '/backend',
      '/backend/',
      '/backend/e/1/deudas',
      '/backend/assets/index-Ab12Cd34.js',
      '/backend/config.json',
    ]) {
      const response = await get(url, HTML);
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
  });

  it('only GET and HEAD: a POST to a client route is the JSON 404', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/e/1/deudas',
      headers: HTML,
      payload: {},
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a request that does not ask for HTML (fetch, a script) gets the JSON 404 for a client route', async () => {
    const response = await get('/e/1/deudas', { accept: 'application/json' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('what is never served', () => {
  it('paths that climb out of the folder, encoded or not, never reach the file beside it', async () => {
    for (const url of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/%2E%2E%2Fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/..%5csecret.txt',
      '/assets/%00.js',
      '/%E0%A4%A',
    ]) {
      for (const headers of [{ accept: '*/*' }, HTML]) {
        const response = await get(url, headers);
        expect(response.body, url).not.toContain(SECRET);
        expect([200, 400, 404], url).toContain(response.statusCode);
        if (response.statusCode === 200) expect(response.body, url).toBe(INDEX);
      }
    }
  });

  it('hidden files are not served', async () => {
    const response = await get('/.env', { accept: '*/*' });
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain(SECRET);
  });
});

describe('config.json', () => {
  it('tells the client where the API is: its own origin by default, the folder’s copy ignored', async () => {
    const response = await get('/config.json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.json()).toEqual({ apiBaseUrl: '' });
  });

  it('follows PORTAL_PUBLIC_PREFIX, and PORTAL_WEB_API_URL, which also opens connect-src and img-src (the logo) to it', async () => {
    const prefixed = await env.app({ PORTAL_WEB_DIR: dist, PORTAL_PUBLIC_PREFIX: '/backend' });
    expect((await get('/config.json', {}, prefixed)).json()).toEqual({ apiBaseUrl: '/backend' });

    const elsewhere = await env.app({
      PORTAL_WEB_DIR: dist,
      PORTAL_WEB_API_URL: 'https://api.example.com/backend/',
    });
    expect((await get('/config.json', {}, elsewhere)).json()).toEqual({
      apiBaseUrl: 'https://api.example.com/backend',
    });
    const page = await get('/', {}, elsewhere);
    expect(page.headers['content-security-policy']).toContain(
      "connect-src 'self' https://api.example.com;",
    );
    expect(page.headers['content-security-policy']).toContain(
      "img-src 'self' data: blob: https://api.example.com;",
    );
  });
});

describe('when there is no web client', () => {
  it('tests and production serve nothing unless PORTAL_WEB_DIR is set', async () => {
    const bare = await env.app();
    for (const url of ['/', '/config.json', '/e/1/deudas']) {
      const response = await get(url, HTML, bare);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(env.config({ NODE_ENV: 'production' }).webClient).toBeUndefined();
  });

  it('development serves web/dist by default, when it was built', () => {
    expect(env.config({ NODE_ENV: 'development' }).webClient).toEqual({
      dir: path.resolve(import.meta.dirname, '../../web/dist'),
      required: false,
    });
  });

  it('a PORTAL_WEB_DIR without index.html stops the start, naming the variable', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'portal-web-empty-'));
    try {
      await expect(env.app({ PORTAL_WEB_DIR: empty })).rejects.toThrow(/PORTAL_WEB_DIR/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
