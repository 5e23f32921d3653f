/**
 * The business's contact (GET /portal/empresas/{id} `marca`) as the footer shows it: each
 * detail with its words and, where a phone or browser can act on it, its link. The API has
 * already checked each value (a site is http(s) only, WhatsApp digits with an optional +); this
 * only builds the links. Pure, tested in test/web/unit/contact.test.ts.
 */

import type { Tenant } from '../api/types.js';

export type Marca = Tenant['marca'];

export interface ContactItem {
  key: 'telefono' | 'whatsapp' | 'email' | 'sitio_web' | 'direccion';
  label: string;
  text: string;
  /** Null for what is only read (the address, a phone without enough digits). */
  href: string | null;
  /** Opens in a new tab (another site): `target="_blank" rel="noopener noreferrer"`. */
  external: boolean;
}

/** `(0341) 555-1234` -> `tel:03415551234`; `+54 9 ...` keeps its +. Null under 6 digits. */
export function telHref(text: string): string | null {
  const digits = text.replace(/\D/g, '');
  if (digits.length < 6) return null;
  return `tel:${text.trim().startsWith('+') ? '+' : ''}${digits}`;
}

/** WhatsApp's click-to-chat address: https://wa.me/ and the number's digits, no +. */
export function whatsappHref(number: string): string | null {
  const digits = number.replace(/\D/g, '');
  return digits.length >= 6 ? `https://wa.me/${digits}` : null;
}

/** `mailto:` the address, with the characters that would start a query or fragment escaped. */
export function mailtoHref(email: string): string {
  return `mailto:${email.replace(/[%?#&]/g, (c) => encodeURIComponent(c))}`;
}

/** An http(s) address as people say it: `https://www.sur.com.ar/` -> `www.sur.com.ar`. */
export function siteLabel(url: string): string {
  return url.replace(/^https?:\/\//i, '').replace(/\/$/, '');
}

/** Only an http(s) URL ever becomes a link (the API checks it; a link must not rely on that). */
function httpUrl(url: string): string | null {
  return /^https?:\/\/[^\s]+$/i.test(url) ? url : null;
}

/** The footer's details, in the order a customer looks for them; empty when there are none. */
export function contactItems(marca: Omit<Marca, 'color'>): ContactItem[] {
  const items: ContactItem[] = [];
  if (marca.telefono)
    items.push({
      key: 'telefono',
      label: 'Teléfono',
      text: marca.telefono,
      href: telHref(marca.telefono),
      external: false,
    });
  if (marca.whatsapp)
    items.push({
      key: 'whatsapp',
      label: 'WhatsApp',
      text: marca.whatsapp,
      href: whatsappHref(marca.whatsapp),
      external: true,
    });
  if (marca.email)
    items.push({
      key: 'email',
      label: 'E-mail',
      text: marca.email,
      href: mailtoHref(marca.email),
      external: false,
    });
  const site = marca.sitio_web ? httpUrl(marca.sitio_web) : null;
  if (site)
    items.push({
      key: 'sitio_web',
      label: 'Sitio web',
      text: siteLabel(site),
      href: site,
      external: true,
    });
  if (marca.direccion)
    items.push({
      key: 'direccion',
      label: 'Dirección',
      text: marca.direccion,
      href: null,
      external: false,
    });
  return items;
}
