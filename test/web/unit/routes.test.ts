import { describe, expect, it } from 'vitest';
import {
  PAGES,
  pageHeading,
  parseRoute,
  pathFor,
  safeNext,
  type PageName,
} from '../../../web/src/page-paths.js';

describe('page paths', () => {
  it('reads the tenant, the sucursal and the page from the link', () => {
    expect(parseRoute('/e/1/', '')).toEqual({
      kind: 'page',
      link: { tenantId: 1, sucursalId: null },
      page: 'home',
    });
    expect(parseRoute('/e/1', '')).toMatchObject({ kind: 'page', page: 'home' });
    expect(parseRoute('/e/7/s/2/deudas', '')).toEqual({
      kind: 'page',
      link: { tenantId: 7, sucursalId: 2 },
      page: 'debts',
    });
    expect(parseRoute('/e/1/ingresar', '?next=%2Fe%2F1%2Fdeudas')).toMatchObject({
      page: 'login',
    });
    expect(parseRoute('/e/1/registro', '')).toMatchObject({ page: 'register' });
    expect(parseRoute('/e/1/recuperar', '')).toMatchObject({ page: 'forgot' });
    expect(parseRoute('/e/1/historial', '')).toMatchObject({ page: 'history' });
    expect(parseRoute('/e/1/s/2/cupones', '')).toMatchObject({ page: 'coupons' });
    expect(parseRoute('/e/1/perfil', '')).toMatchObject({ page: 'profile' });
    expect(parseRoute('/e/1/s/2/estado-cuenta', '')).toMatchObject({ page: 'statement' });
  });

  it('refuses malformed links', () => {
    for (const path of ['/e/0/', '/e/abc/', '/e/1/s/x/', '/e/1/nada', '/e/1/deudas/2', '/x']) {
      expect(parseRoute(path, ''), path).toEqual({ kind: 'not-found' });
    }
    expect(parseRoute('/', '')).toEqual({ kind: 'landing' });
  });

  it('reads the payment of the result page, whatever estado says', () => {
    expect(parseRoute('/pagos/resultado', '?payment_id=12&estado=aprobado')).toEqual({
      kind: 'result',
      paymentId: 12,
      link: null,
      token: null,
    });
    expect(parseRoute('/pagos/resultado', '?estado=aprobado')).toEqual({
      kind: 'result',
      paymentId: null,
      link: null,
      token: null,
    });
  });

  it('reads the tenant, the sucursal and the token the return address carries', () => {
    const token = '1.2.12.1764400000.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ_-';
    const search = `?payment_id=12&estado=aprobado&tenant_id=1&sucursal_id=2&token=${token}`;
    expect(parseRoute('/pagos/resultado', search)).toEqual({
      kind: 'result',
      paymentId: 12,
      link: { tenantId: 1, sucursalId: 2 },
      token,
    });
    // The tenant alone still brands the page and links its login; a token needs its tenant.
    expect(parseRoute('/pagos/resultado', '?payment_id=12&tenant_id=1')).toMatchObject({
      link: { tenantId: 1, sucursalId: null },
      token: null,
    });
    expect(parseRoute('/pagos/resultado', `?payment_id=12&token=${token}`)).toMatchObject({
      link: null,
      token: null,
    });
    for (const bad of ['tenant_id=0', 'tenant_id=01', 'tenant_id=x', 'tenant_id=2147483648'])
      expect(parseRoute('/pagos/resultado', `?payment_id=12&${bad}&token=${token}`)).toMatchObject({
        link: null,
        token: null,
      });
    for (const bad of ['', 'a b', '<script>', 'x'.repeat(1025)])
      expect(
        parseRoute(
          '/pagos/resultado',
          `?payment_id=12&tenant_id=1&token=${encodeURIComponent(bad)}`,
        ),
      ).toMatchObject({ link: { tenantId: 1 }, token: null });
  });

  it('builds paths that parse back', () => {
    const link = { tenantId: 3, sucursalId: 4 };
    expect(pathFor(link, 'debts')).toBe('/e/3/s/4/deudas');
    expect(pathFor({ tenantId: 3, sucursalId: null }, 'home')).toBe('/e/3/');
    expect(pathFor(link, 'login', { next: '/e/3/s/4/deudas' })).toBe(
      '/e/3/s/4/ingresar?next=%2Fe%2F3%2Fs%2F4%2Fdeudas',
    );
    for (const page of ['home', 'login', 'register', 'forgot', 'debts'] as const) {
      expect(parseRoute(pathFor(link, page), '')).toEqual({ kind: 'page', link, page });
    }
  });

  it('follows only our own paths after login', () => {
    expect(safeNext('/e/1/deudas')).toBe('/e/1/deudas');
    expect(safeNext('/pagos/resultado?payment_id=3')).toBe('/pagos/resultado?payment_id=3');
    expect(safeNext('/pagos/resultado?payment_id=3&tenant_id=1&token=t')).toBe(
      '/pagos/resultado?payment_id=3&tenant_id=1&token=t',
    );
    expect(safeNext('//evil.example/e/1/')).toBeNull();
    expect(safeNext('https://evil.example/e/1/')).toBeNull();
    expect(safeNext('/otra-cosa')).toBeNull();
    expect(safeNext(null)).toBeNull();
  });
});

describe('page headings', () => {
  it('every page has its own, the router’s placeholder and the page saying the same', () => {
    const headings = (Object.keys(PAGES) as PageName[]).map((page) => pageHeading(page, 'Ana'));
    expect(new Set(headings).size).toBe(headings.length);
    expect(pageHeading('home', 'Juan Pérez')).toBe('Hola, Juan Pérez');
    expect(pageHeading('debts', 'Ana')).toBe('Tus facturas');
  });
});
