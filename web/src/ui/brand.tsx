/**
 * The business's own portal (GET /portal/empresas/{id}: `marca`, `logo_url`): its colour on the
 * header and the buttons (made legible by lib/contrast.ts), its logo in the header and as the
 * tab's icon, and its contact in the footer. The shell provides the tenant to everything under
 * it (the tab's title, the coupons' networks, "comunicate con la empresa").
 */
import { createContext } from 'preact';
import { useContext, useLayoutEffect, useState } from 'preact/hooks';
import type { Tenant } from '../api/types.js';
import { resolveApiUrl } from '../lib/brand.js';
import { applyPalette } from './palette.js';
import { contactItems, type ContactItem } from '../lib/contact.js';
import { brandPalette } from '../lib/contrast.js';
import { apiBaseUrl } from '../session/session.js';

/** The tenant whose portal this page is, or null (the landing page, an unknown tenant). */
export const TenantContext = createContext<Tenant | null>(null);

export function useEmpresa(): Tenant | null {
  return useContext(TenantContext);
}

/** The footer's id: "comunicate con la empresa" links to it. */
export const CONTACT_ID = 'contacto';

/** index.html's own icon, put back when a page has no logo. */
let defaultIcon: string | null | undefined;

/**
 * The tab's icon: `href`, or index.html's own with null. The header's logo sets it once it has
 * loaded, so the icon's request finds the logo in the HTTP cache instead of downloading it a
 * second time beside the first (a slow link pays for every byte), and a logo that fails never
 * becomes an icon.
 */
function showIcon(href: string | null): void {
  const link = document.querySelector<HTMLLinkElement>('link[rel~="icon"]');
  if (!link) return;
  if (defaultIcon === undefined) defaultIcon = link.getAttribute('href');
  const wanted = href ?? defaultIcon ?? 'data:,';
  if (link.getAttribute('href') !== wanted) link.setAttribute('href', wanted);
}

/** Where the logo is, as the browser loads it (against the API's origin), or null. */
export function logoSource(tenant: Tenant | null): string | null {
  return tenant ? resolveApiUrl(tenant.logo_url, apiBaseUrl(), window.location.href) : null;
}

/**
 * Paints the page in the tenant's colour before the browser paints (a layout effect: no frame
 * in the default colour once the tenant is known); no tenant, or one without a logo, puts the
 * default colours and icon back (the logo's icon comes from BrandMark once it has loaded).
 */
export function useBrandOnPage(tenant: Tenant | null): void {
  const color = tenant?.marca.color ?? null;
  const hasLogo = logoSource(tenant) !== null;
  useLayoutEffect(() => applyPalette(brandPalette(color)), [color]);
  useLayoutEffect(() => {
    if (!hasLogo) showIcon(null);
  }, [hasLogo]);
}

/**
 * The header's brand: the logo (its `alt` is the business's name) and the name beside it. The
 * logo loads lazily in a fixed 40×40 box, so it never holds up the page nor moves anything when
 * it arrives; while it is shown the name beside it is hidden from screen readers (the logo's
 * `alt` already says it); a logo that fails to load leaves the name alone. Once loaded it is the
 * tab's icon too.
 */
export function BrandMark(props: { name: string; logo: string | null }) {
  const [failed, setFailed] = useState<string | null>(null);
  const logo = props.logo !== null && failed !== props.logo ? props.logo : null;
  return (
    <>
      {logo && (
        <img
          class="brand-logo"
          src={logo}
          alt={props.name}
          width={40}
          height={40}
          loading="lazy"
          decoding="async"
          onLoad={() => showIcon(logo)}
          onError={() => setFailed(logo)}
        />
      )}
      <span class="brand-name" aria-hidden={logo ? 'true' : undefined}>
        {props.name}
      </span>
    </>
  );
}

function ContactLine(props: { item: ContactItem }) {
  const { item } = props;
  return (
    <li>
      <span class="contact-label">{item.label}: </span>
      {item.href ? (
        <a
          href={item.href}
          {...(item.external && { target: '_blank', rel: 'noopener noreferrer' })}
        >
          {item.text}
          {item.external && <span class="visually-hidden"> (se abre en otra pestaña)</span>}
        </a>
      ) : (
        <span>{item.text}</span>
      )}
    </li>
  );
}

/** The business's contact as a list of links (the footer's, and pages that ask to use it). */
export function ContactLinks(props: { tenant: Tenant }) {
  const items = contactItems(props.tenant.marca);
  if (items.length === 0) return null;
  return (
    <ul class="contact-list">
      {items.map((item) => (
        <ContactLine key={item.key} item={item} />
      ))}
    </ul>
  );
}

/** The footer with the business's contact, or nothing when it gives none. */
export function ContactFooter(props: { tenant: Tenant | null }) {
  const items = props.tenant ? contactItems(props.tenant.marca) : [];
  if (!props.tenant || items.length === 0) return null;
  return (
    <footer class="site-footer" id={CONTACT_ID} aria-labelledby="contacto-title">
      <h2 id="contacto-title" class="footer-title">
        Contacto de {props.tenant.nombre}
      </h2>
      <ul class="contact-list">
        {items.map((item) => (
          <ContactLine key={item.key} item={item} />
        ))}
      </ul>
    </footer>
  );
}

/**
 * "comunicate con la empresa": a link to the footer's contact when the business gives one, the
 * words alone otherwise.
 */
export function ContactTheBusiness(props: { children: string }) {
  const tenant = useEmpresa();
  if (!tenant || contactItems(tenant.marca).length === 0) return <>{props.children}</>;
  return <a href={`#${CONTACT_ID}`}>{props.children}</a>;
}
