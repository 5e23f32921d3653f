import http, { type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptedEncodings } from '../../../../src/platform/http/static-files.js';
import {
  HEAD_MARKER,
  renderIndex,
  isTokenPage,
  tenantOfPath,
} from '../../../../src/platform/http/web-client.js';
import { expectNoSeriousAxeViolations, screenshotPage } from '../../../helpers/browser.js';
import { DEMO_TENANT } from '../../../helpers/portal.js';
import { useSharedWebClient } from '../../../helpers/web-suite.js';

/*
 * The web client (web/, built into web/dist) served by the API at `/`, as `npm start` serves it.
 * A missing build fails here, it never skips: ensureWebBuild makes it first when it can.
 */

const web = useSharedWebClient();

describe('web client served by the API', () => {
  it('`/` answers the client in Spanish (lang="es-AR") with no serious axe violation', async () => {
    const { page } = web.session;
    const response = await page.goto(`${web.portal.url}/`);
    expect(response?.status()).toBe(200);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es-AR');
    await page.locator('main').first().waitFor();
    await expectNoSeriousAxeViolations(page);
    await screenshotPage(page, 'web-landing');
    expect(web.session.errors).toEqual([]);
  });

  it("the demo tenant's login page (/e/<id>/ingresar) names the tenant and has a labelled password field, with no serious axe violation", async () => {
    const { page } = web.session;
    await page.goto(`${web.portal.url}/e/${web.portal.tenantId}/ingresar`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es-AR');
    await page.getByLabel('Contraseña', { exact: false }).first().waitFor();
    await page.getByText(DEMO_TENANT.nombre).first().waitFor();
    await expectNoSeriousAxeViolations(page);
    await screenshotPage(page, 'web-login');
    expect(web.session.errors).toEqual([]);
  });

  it('a link of a tenant nobody has shows "No encontramos esta empresa" from the shared page of no tenant (issue 48)', async () => {
    const { page } = web.session;
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    const response = await page.goto(`${web.portal.url}/e/987654/ingresar`);
    expect(response?.status()).toBe(200);
    await page.getByText('No encontramos esta empresa', { exact: false }).first().waitFor();
    // The page names no tenant; the client asked for the address's own.
    expect(await page.content()).not.toContain('rel="preload" as="fetch"');
    expect(asked).toContain('/portal/empresas/987654');
    await expectNoSeriousAxeViolations(page);
    expect(web.session.errors).toEqual([]);
  });
});

/** A GET of the portal with `headers`, the body as sent (not decoded). */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(url, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
        })
        .on('error', reject);
    },
  );
}

describe('a slow link (docs/web.md "Size")', () => {
  it('the page carries its settings and, on a tenant link, preloads the tenant; files go out precompressed when accepted', async () => {
    const page = await rawGet(`${web.portal.url}/e/${web.portal.tenantId}/ingresar`, {
      accept: 'text/html',
      'accept-encoding': 'gzip, deflate, br',
    });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.headers.vary).toContain('accept-encoding');
    const html = brotliDecompressSync(page.body).toString();
    // The settings, and whose page it is (issue 38: the business's name on the first paint).
    expect(html).toContain(
      `<script type="application/json" id="portal-config">{"apiBaseUrl":"","empresa":{"id":${web.portal.tenantId},"nombre":"${DEMO_TENANT.nombre}"}}`,
    );
    expect(html).toContain(`<title>${DEMO_TENANT.nombre}</title>`);
    expect(html).toContain(
      `<link rel="preload" as="fetch" crossorigin="use-credentials" href="/portal/empresas/${web.portal.tenantId}" />`,
    );
    // The static shell: text before any script runs.
    expect(html).toContain('Cargando el portal…');
    // The gateways' return address names the tenant in its query: its page preloads it too.
    const back = await rawGet(
      `${web.portal.url}/pagos/resultado?payment_id=7&estado=aprobado&tenant_id=${web.portal.tenantId}&sucursal_id=1&token=x`,
      { accept: 'text/html' },
    );
    expect(back.body.toString()).toContain(
      `<link rel="preload" as="fetch" crossorigin="use-credentials" href="/portal/empresas/${web.portal.tenantId}" />`,
    );
    // Its first paint names no business, nor does the pay-link page's: the address may name
    // another one than the token's (issue 45, the forged proof of payment).
    const payLinkPage = await rawGet(`${web.portal.url}/e/${web.portal.tenantId}/pagar`, {
      accept: 'text/html',
    });
    for (const tokenPage of [back.body.toString(), payLinkPage.body.toString()]) {
      expect(tokenPage).not.toContain(DEMO_TENANT.nombre);
      expect(tokenPage).toContain('Cargando el portal…');
    }
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-inline');

    const script = /src="(\/assets\/index-[^"]+\.js)"/.exec(html)?.[1] ?? '';
    const plain = await rawGet(`${web.portal.url}${script}`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gz = await rawGet(`${web.portal.url}${script}`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    const br = await rawGet(`${web.portal.url}${script}`, { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    expect(br.headers['content-length']).toBe(String(br.body.length));
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    // config.json stays for a client hosted elsewhere.
    const config = await rawGet(`${web.portal.url}/config.json`, {});
    expect(JSON.parse(config.body.toString())).toEqual({ apiBaseUrl: '' });
  });

  it('the login page asks the tenant once (the preload is used) and never config.json', async () => {
    const { page } = web.session;
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await page.goto(`${web.portal.url}/e/${web.portal.tenantId}/ingresar`);
    await page.getByLabel('Contraseña', { exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(asked.filter((p) => p === `/portal/empresas/${web.portal.tenantId}`)).toHaveLength(1);
    expect(asked).not.toContain('/config.json');
    expect(web.session.errors).toEqual([]);
  });
});

describe('a page whose code does not arrive', () => {
  it('says so and offers to try again, instead of leaving the page as it was', async () => {
    const { page } = web.session;
    await page.route('**/assets/register-*.js', (route) => route.abort('internetdisconnected'));
    await page.goto(`${web.portal.url}/e/${web.portal.tenantId}/registro`);
    await page.getByRole('heading', { level: 1, name: 'No pudimos abrir esta página' }).waitFor();
    await page.getByRole('button', { name: 'Reintentar' }).waitFor();
    await page.unroute('**/assets/register-*.js');
    await page.getByRole('button', { name: 'Reintentar' }).click();
    await page.getByRole('heading', { level: 1, name: 'Creá tu cuenta' }).waitFor();
  });
});

describe('how the API prepares the pages (pure parts)', () => {
  it('reads Accept-Encoding with its q-values, brotli first', () => {
    expect(acceptedEncodings(undefined)).toEqual([]);
    expect(acceptedEncodings('gzip, deflate, br')).toEqual(['br', 'gzip']);
    expect(acceptedEncodings('gzip;q=1.0, br;q=0')).toEqual(['gzip']);
    expect(acceptedEncodings('*')).toEqual(['br', 'gzip']);
    expect(acceptedEncodings('*;q=0, gzip')).toEqual(['gzip']);
    expect(acceptedEncodings('x-gzip')).toEqual(['gzip']);
    expect(acceptedEncodings('identity')).toEqual([]);
  });

  it('finds the tenant of a portal page as the client does', () => {
    expect(tenantOfPath('/e/1/')).toBe(1);
    expect(tenantOfPath('/e/12/s/2/deudas')).toBe(12);
    expect(tenantOfPath('/e/1')).toBe(1);
    expect(tenantOfPath('/pagos/resultado', '?payment_id=3&tenant_id=7&token=x')).toBe(7);
    expect(isTokenPage('/pagos/resultado')).toBe(true);
    expect(isTokenPage('/e/7/pagar')).toBe(true);
    expect(isTokenPage('/e/7/deudas')).toBe(false);
    expect(tenantOfPath('/pagos/resultado', '?tenant_id=07')).toBeUndefined();
    expect(tenantOfPath('/e/x/', '?tenant_id=7')).toBeUndefined();
    for (const path of ['/', '/e/0/', '/e/01/', '/e/x/', '/e/2147483648/', '/pagos/resultado'])
      expect(tenantOfPath(path), path).toBeUndefined();
  });

  it('fills the head marker with the settings (never closing the element) and the preload', () => {
    const template = `<head>${HEAD_MARKER}</head>`;
    expect(renderIndex(template, { apiBaseUrl: '' })).toBe(
      '<head><script type="application/json" id="portal-config">{"apiBaseUrl":""}</script></head>',
    );
    const hostile = renderIndex(
      template,
      { apiBaseUrl: 'https://a.example/"></script><x' },
      {
        id: 7,
      },
    );
    expect(hostile).not.toContain('</script><x');
    expect(hostile).toContain('\\u003c/script>\\u003cx');
    expect(hostile).toContain(
      'href="https://a.example/&quot;&gt;&lt;/script&gt;&lt;x/portal/empresas/7"',
    );
    expect(renderIndex('<head></head>', { apiBaseUrl: '' }, { id: 7 })).toBe('<head></head>');
  });

  it('puts a tenant’s name in the title, the header and the settings, escaped, so the first paint names the business', () => {
    const template = `<head><title>Portal de clientes</title>${HEAD_MARKER}</head><body><p class="brand">Portal de clientes</p></body>`;
    const html = renderIndex(
      template,
      { apiBaseUrl: '' },
      { id: 7, nombre: 'Tom & Jerry <b>"S.A."</b>' },
    );
    const escaped = 'Tom &amp; Jerry &lt;b&gt;&quot;S.A.&quot;&lt;/b&gt;';
    expect(html).toContain(`<title>${escaped}</title>`);
    expect(html).toContain(`<p class="brand">${escaped}</p>`);
    expect(html).not.toContain('<b>');
    expect(html).toContain(
      '"empresa":{"id":7,"nombre":"Tom & Jerry \\u003cb>\\"S.A.\\"\\u003c/b>"}',
    );
    // A name that looks like a replacement pattern is text, never a pattern.
    expect(renderIndex(template, { apiBaseUrl: '' }, { id: 7, nombre: "$& $' $1" })).toContain(
      `<title>$&amp; $&#39; $1</title>`,
    );
    // Unknown name (unknown tenant, registry unreachable): the page as built.
    expect(renderIndex(template, { apiBaseUrl: '' }, { id: 7 })).toContain(
      '<title>Portal de clientes</title>',
    );
  });
});
