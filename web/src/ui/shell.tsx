/**
 * The frame of every page: skip link, the header (the business's logo and name, and the
 * "Principal" nav for a signed-in customer), `<main>`, and the footer with the business's
 * contact. The page is painted in the business's colour (ui/brand.tsx), and everything under the
 * shell can read the tenant (TenantContext).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { Tenant } from '../api/types.js';
import { servedTenantName } from '../config.js';
import { PORTAL_NAME } from '../lib/brand.js';
import { pathFor, type PageName, type PortalLink } from '../page-paths.js';
import { logout, type SessionState } from '../session/session.js';
import { BrandMark, ContactFooter, logoSource, TenantContext, useBrandOnPage } from './brand.js';
import { ConnectionStatus } from './connection.js';
import { Link } from './link.js';

/** The signed-in pages of the nav, in order. */
const NAV: readonly (readonly [PageName, string])[] = [
  ['home', 'Inicio'],
  ['debts', 'Facturas'],
  ['history', 'Pagos'],
  ['receipts', 'Recibos'],
  ['coupons', 'Cupones'],
  ['statement', 'Estado de cuenta'],
  ['invoices', 'Comprobantes'],
  ['profile', 'Perfil'],
];

const withoutTrailingSlash = (path: string) => path.replace(/\/+$/, '') || '/';

export function Shell(props: {
  session: SessionState;
  /** The portal the page belongs to (none on `/` and unknown paths). */
  home?: PortalLink | null;
  /** The business (GET /portal/empresas/{id}) once known: its name, brand and contact. */
  tenant?: Tenant | null;
  /** Whether the session is of this portal (a session of another tenant shows no nav). */
  fits?: boolean;
  /** A page that leads nowhere else (a pay link's): the name is not a link, no nav. */
  plain?: boolean;
  children: ComponentChildren;
}) {
  const { home } = props;
  const tenant = props.tenant ?? null;
  const signedIn =
    props.session.status === 'active' && (props.fits ?? true) && !props.plain && home;
  useBrandOnPage(tenant);
  return (
    <TenantContext.Provider value={tenant}>
      <a class="skip-link" href="#contenido">
        Saltar al contenido
      </a>
      <header class="top">
        <div class="top-inner">
          <Brand
            name={tenant?.nombre ?? servedTenantName(home?.tenantId) ?? PORTAL_NAME}
            logo={logoSource(tenant)}
            href={home && !props.plain ? pathFor(home, signedIn ? 'home' : 'login') : null}
          />
          {signedIn && <MainNav home={home} />}
        </div>
      </header>
      <ConnectionStatus />
      <main id="contenido" tabIndex={-1}>
        {props.children}
      </main>
      <ContactFooter tenant={tenant} />
    </TenantContext.Provider>
  );
}

/** The business's logo and name, a link to its portal's start when there is one. */
function Brand(props: { name: string; logo: string | null; href: string | null }) {
  const mark = <BrandMark name={props.name} logo={props.logo} />;
  return (
    <p class="brand">
      {props.href ? (
        <Link href={props.href} class="brand-link">
          {mark}
        </Link>
      ) : (
        <span class="brand-link">{mark}</span>
      )}
    </p>
  );
}

/**
 * The signed-in pages and "Salir". On a phone it folds behind "Menú" (a disclosure button) so
 * the header takes one line; it opens as a list and closes on the next page.
 */
function MainNav(props: { home: PortalLink }) {
  const { path } = useLocation();
  const here = withoutTrailingSlash(path);
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  return (
    <nav aria-label="Principal" class="main-nav">
      <button
        type="button"
        class="menu-button"
        aria-expanded={open}
        aria-controls="nav-principal"
        onClick={() => setOpen((now) => !now)}
      >
        Menú
      </button>
      <ul id="nav-principal" class={open ? 'open' : undefined}>
        {NAV.map(([page, label]) => {
          const href = pathFor(props.home, page);
          return (
            <li key={page}>
              <Link href={href} current={withoutTrailingSlash(href) === here}>
                {label}
              </Link>
            </li>
          );
        })}
        <li>
          <button type="button" class="link-button" onClick={() => void logout()}>
            Salir
          </button>
        </li>
      </ul>
    </nav>
  );
}
