/**
 * The portal's URLs. Pure (no DOM), tested in test/web/unit/routes.test.ts.
 *
 *   /e/{tenant}/[s/{sucursal}/]{page}   a tenant's portal; the link fixes the tenant, and the
 *                                       sucursal too when it has `s/{id}`
 *   /pagos/resultado?payment_id={id}    where the gateway returns the payer (docs/api.md, iniciar);
 *     [&tenant_id=..&sucursal_id=..     the tenant and the token that reads the payment's status
 *      &token=..]                       without a session (older addresses: from the session)
 *   /                                   no tenant: says to use the company's link
 *
 * app.tsx routes these URLs with preact-iso's Router; this module is what both the router and the
 * rest of the client agree on: the pages' path segments, the links' shape, paths built from a
 * link, and which `next` may be followed after login.
 */

export const PAGES = {
  home: '',
  login: 'ingresar',
  register: 'registro',
  forgot: 'recuperar',
  debts: 'deudas',
  history: 'historial',
  receipts: 'recibos',
  coupons: 'cupones',
  statement: 'estado-cuenta',
  invoices: 'facturas',
  profile: 'perfil',
} as const;

export type PageName = keyof typeof PAGES;

/**
 * The heading of each page behind the session, which the pages and the router share: the router
 * shows it at once, over "Cargando…", while the page's own code is still on its way.
 */
export function pageHeading(page: PageName, nombre: string): string {
  switch (page) {
    case 'home':
      return `Hola, ${nombre}`;
    case 'debts':
      return 'Tus facturas';
    case 'history':
      return 'Tus pagos';
    case 'receipts':
      return 'Tus recibos';
    case 'coupons':
      return 'Cupones de pago';
    case 'statement':
      return 'Estado de cuenta';
    case 'invoices':
      return 'Tus comprobantes';
    case 'profile':
      return 'Tu perfil';
    case 'login':
      return 'Ingresá a tu cuenta';
    case 'register':
      return 'Creá tu cuenta';
    case 'forgot':
      return 'Recuperá tu contraseña';
  }
}

/** Pages anyone can see; every other page needs a session. */
export const PUBLIC_PAGES: ReadonlySet<PageName> = new Set(['login', 'register', 'forgot']);

/** Where a tenant's link points: the tenant, and the sucursal when the link fixes it. */
export interface PortalLink {
  tenantId: number;
  sucursalId: number | null;
}

export type Route =
  | { kind: 'page'; link: PortalLink; page: PageName }
  | {
      kind: 'result';
      paymentId: number | null;
      /** The portal the payer left from, when the address names it (a session may be gone). */
      link: PortalLink | null;
      /** The return address's token: reads this payment's status without a session. */
      token: string | null;
    }
  | { kind: 'landing' }
  | { kind: 'not-found' };

/** A tenant or sucursal id of a URL: a positive 32-bit integer written plainly, else null. */
export function positiveInt(segment: string | undefined): number | null {
  if (segment === undefined || !/^[1-9]\d{0,9}$/.test(segment)) return null;
  const value = Number(segment);
  return Number.isSafeInteger(value) && value <= 2_147_483_647 ? value : null;
}

/** The page a path segment names (`deudas` -> debts, `` -> home), else null. */
export function pageOf(segment: string): PageName | null {
  for (const [name, path] of Object.entries(PAGES) as [PageName, string][]) {
    if (path === segment) return name;
  }
  return null;
}

export function parseRoute(pathname: string, search: string): Route {
  const segments = pathname.split('/').filter((s) => s !== '');
  if (segments.length === 0) return { kind: 'landing' };
  if (segments[0] === 'pagos' && segments[1] === 'resultado' && segments.length === 2)
    return resultRoute(new URLSearchParams(search));
  if (segments[0] !== 'e') return { kind: 'not-found' };
  const tenantId = positiveInt(segments[1]);
  if (tenantId === null) return { kind: 'not-found' };
  let rest = segments.slice(2);
  let sucursalId: number | null = null;
  if (rest[0] === 's') {
    sucursalId = positiveInt(rest[1]);
    if (sucursalId === null) return { kind: 'not-found' };
    rest = rest.slice(2);
  }
  if (rest.length > 1) return { kind: 'not-found' };
  const page = pageOf(rest[0] ?? '');
  if (page === null) return { kind: 'not-found' };
  return { kind: 'page', link: { tenantId, sucursalId }, page };
}

/** The token's characters as the API signs it (digits, dots, base64url); anything else is none. */
const RESULT_TOKEN = /^[\w.-]{1,1024}$/;

function resultRoute(query: URLSearchParams): Route & { kind: 'result' } {
  const param = (name: string) => query.get(name) ?? undefined;
  const tenantId = positiveInt(param('tenant_id'));
  const link =
    tenantId === null ? null : { tenantId, sucursalId: positiveInt(param('sucursal_id')) };
  const token = query.get('token');
  return {
    kind: 'result',
    paymentId: positiveInt(param('payment_id')),
    link,
    token: link !== null && token !== null && RESULT_TOKEN.test(token) ? token : null,
  };
}

/** `/e/1/deudas`, `/e/1/s/2/ingresar`, `/e/1/` for home. */
export function pathFor(link: PortalLink, page: PageName, query?: Record<string, string>): string {
  const base =
    link.sucursalId === null ? `/e/${link.tenantId}/` : `/e/${link.tenantId}/s/${link.sucursalId}/`;
  const qs = query ? new URLSearchParams(query).toString() : '';
  return `${base}${PAGES[page]}${qs ? `?${qs}` : ''}`;
}

/** A `next` query value is only followed when it is one of our own paths (no open redirect). */
export function safeNext(next: string | null): string | null {
  if (next === null || !next.startsWith('/') || next.startsWith('//')) return null;
  const url = new URL(next, 'http://portal.invalid');
  const route = parseRoute(url.pathname, url.search);
  return route.kind === 'page' || route.kind === 'result' ? `${url.pathname}${url.search}` : null;
}
