import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOGO_BYTES, parseLogo } from '../../src/modules/tenants/brand.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

/*
 * The business's own portal (docs/api.md GET /portal/empresas/{tenant_id}): `marca` from ini
 * portal.marca.*, checked; the logo from portal.marca.logo, a PNG, JPEG or WebP data URI up to
 * 200 KB, served with an ETag; `redes_cobranza` from portal.cupones.redes.
 */

/** The smallest valid PNG: a 1×1 transparent pixel. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
const dataUri = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

const env = useTestEnvironment();
let app: FastifyInstance;
let branded: TestTenant;
let addresses = 0;

function get(url: string, headers: Record<string, string> = {}) {
  addresses += 1;
  return app.inject({
    method: 'GET',
    url,
    headers,
    remoteAddress: `10.30.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`,
  });
}

async function setIni(tenant: TestTenant, values: Record<string, string>): Promise<void> {
  for (const [clave, valor] of Object.entries(values)) {
    await tenant.query(
      `INSERT INTO public.ini (clave, valor) VALUES ($1, $2)
       ON CONFLICT (clave) DO UPDATE SET valor = excluded.valor`,
      [clave, valor],
    );
  }
}

beforeAll(async () => {
  branded = await env.addTenant({ id: 11, nombre: 'Ferretería Sur', sucursales: [{ id: 1 }] });
  await env.addTenant({ id: 12, nombre: 'Sin Marca', sucursales: [{ id: 1 }] });
  await setIni(branded, {
    'portal.marca.color': '#1A7',
    'portal.marca.telefono': ' (0341) 555-1234 ',
    'portal.marca.email': 'ventas@ferreteriasur.com.ar',
    'portal.marca.whatsapp': '+54 9 341 555-1234',
    'portal.marca.sitio_web': 'ferreteriasur.com.ar',
    'portal.marca.direccion': 'San Martín 1234,\n Rosario',
    'portal.marca.logo': dataUri('image/png', PNG),
    'portal.cupones.redes': 'Pago Fácil, Rapipago',
    'sistema.zona_horaria': 'America/Argentina/Cordoba',
    'portal.avisos.habilitado': 'sí',
    'portal.avisos.dias_antes': '5',
    'portal.avisos.dias_vencido': '10, 2',
  });
  // The ERP's fiscal data (docs/erp.md), as a tenant that issues electronic invoices has it.
  await branded.query(
    `CREATE TABLE IF NOT EXISTS public.empfiscal (cuit varchar(11) NOT NULL, razon_social text NOT NULL,
       domicilio text NOT NULL, cond_iva text NOT NULL, iibb text, inicio_actividades date NOT NULL)`,
  );
  await branded.query(
    `INSERT INTO public.empfiscal VALUES ('30712345678', 'Ferretería Sur S.A.', 'San Martín 1234',
       'IVA Responsable Inscripto', NULL, '2010-03-01')`,
  );
  app = await env.app();
});

interface Listing {
  zona_horaria: string;
  cuit: string | null;
  avisos_habilitados: boolean;
  avisos_etapas: { dias_antes: number; dias_vencido: number[] };
  marca: Record<string, string | null>;
  logo_url: string | null;
  redes_cobranza: string | null;
}

async function listingOf(id: number): Promise<Listing> {
  const response = await get(`/portal/empresas/${id}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: Listing }>().data;
}

describe('GET /portal/empresas/{tenant_id}: the brand', () => {
  it('shows the business’s colour, contact and networks, each in one checked form', async () => {
    const data = await listingOf(11);
    expect(data.marca).toEqual({
      color: '#11aa77',
      telefono: '(0341) 555-1234',
      email: 'ventas@ferreteriasur.com.ar',
      whatsapp: '+5493415551234',
      sitio_web: 'https://ferreteriasur.com.ar/',
      direccion: 'San Martín 1234, Rosario',
    });
    expect(data.redes_cobranza).toBe('Pago Fácil, Rapipago');
    expect(data.zona_horaria).toBe('America/Argentina/Cordoba');
    expect(data.logo_url).toMatch(/^\/portal\/empresas\/11\/logo\?v=[\w-]{22}$/);
  });

  it('says whether the business sends due-date reminders, and when, as the daily run reads ini', async () => {
    const on = await listingOf(11);
    expect(on.avisos_habilitados).toBe(true);
    expect(on.avisos_etapas).toEqual({ dias_antes: 5, dias_vencido: [2, 10] });
    // Off unless the tenant turns them on: the profile then offers no switch.
    const off = await listingOf(12);
    expect(off.avisos_habilitados).toBe(false);
    expect(off.avisos_etapas).toEqual({ dias_antes: 3, dias_vencido: [1, 7] });
  });

  it('names the business’s CUIT from the ERP’s fiscal data, and null for a tenant without that table', async () => {
    expect((await listingOf(11)).cuit).toBe('30712345678');
    expect((await listingOf(12)).cuit).toBeNull();
  });

  it('nothing configured: every field null', async () => {
    const data = await listingOf(12);
    expect(Object.values(data.marca).every((value) => value === null)).toBe(true);
    expect(data.logo_url).toBeNull();
    expect((await get('/portal/empresas/12/logo')).statusCode).toBe(404);
  });

  it('what could become a script or a link elsewhere is dropped: javascript: sites, bad colours, bad e-mails', async () => {
    const tenant = await env.addTenant({ id: 13, nombre: 'Rara', sucursales: [{ id: 1 }] });
    await setIni(tenant, {
      'portal.marca.color': 'red; background: url(x)',
      'portal.marca.sitio_web': 'javascript:alert(1)',
      'portal.marca.email': 'no es un correo',
      'portal.marca.whatsapp': 'llamame',
      'sistema.zona_horaria': 'Marte/Olympus',
    });
    const data = await listingOf(13);
    expect(data.marca).toMatchObject({ color: null, sitio_web: null, email: null, whatsapp: null });
    expect(data.zona_horaria).toBe('America/Argentina/Buenos_Aires');
  });
});

describe('GET /portal/empresas/{tenant_id}/logo', () => {
  it('serves the PNG with its type, an ETag, long caching, nosniff and a CSP that allows nothing, and 304 when the client has it', async () => {
    const { logo_url: url } = await listingOf(11);
    const response = await get(url ?? '');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.headers['cache-control']).toBe('public, max-age=86400');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBe("default-src 'none'");
    expect(response.rawPayload.equals(PNG)).toBe(true);
    const etag = String(response.headers.etag);
    expect(url).toContain(etag.slice(1, -1));
    const again = await get('/backend/portal/empresas/11/logo', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });

  it('an unknown or inactive tenant’s logo is 404 like a tenant without one', async () => {
    expect((await get('/portal/empresas/999/logo')).statusCode).toBe(404);
    expect((await get('/portal/empresas/0/logo')).statusCode).toBe(422);
  });

  it('a changed logo is a new URL (its version), seen within the brand cache’s minute', () => {
    const first = parseLogo(dataUri('image/png', PNG));
    const second = parseLogo(dataUri('image/jpeg', JPEG));
    expect(first.logo?.etag).not.toBe(second.logo?.etag);
    expect(second.logo?.type).toBe('image/jpeg');
  });
});

describe('portal.marca.logo is refused unless it is a PNG, JPEG or WebP image of at most 200 KB', () => {
  it.each([
    ['an SVG', dataUri('image/svg+xml', Buffer.from('<svg onload="alert(1)"/>'))],
    ['a GIF', dataUri('image/gif', Buffer.from('GIF89a'))],
    ['a PNG label on JPEG bytes', dataUri('image/png', JPEG)],
    ['a WebP label on PNG bytes', dataUri('image/webp', PNG)],
    ['not a data URI', 'https://example.com/logo.png'],
    ['not base64', 'data:image/png;base64,***'],
    [
      'one byte over 200 KB',
      dataUri('image/png', Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES - PNG.length + 1)])),
    ],
  ])('%s', (_name, value) => {
    const parsed = parseLogo(value);
    expect(parsed.logo).toBeUndefined();
    expect(parsed.problem).toMatch(/portal\.marca\.logo/);
  });

  it('exactly 200 KB is accepted', () => {
    const bytes = Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES - PNG.length)]);
    expect(parseLogo(dataUri('image/png', bytes)).logo?.bytes.length).toBe(MAX_LOGO_BYTES);
  });

  it('a refused logo leaves the tenant without one: logo_url null, the route 404', async () => {
    const tenant = await env.addTenant({ id: 14, nombre: 'Con SVG', sucursales: [{ id: 1 }] });
    await setIni(tenant, {
      'portal.marca.logo': dataUri('image/svg+xml', Buffer.from('<svg/>')),
    });
    expect((await listingOf(14)).logo_url).toBeNull();
    expect((await get('/portal/empresas/14/logo')).statusCode).toBe(404);
  });
});
