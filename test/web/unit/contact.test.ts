import { describe, expect, it } from 'vitest';
import {
  contactItems,
  mailtoHref,
  siteLabel,
  telHref,
  whatsappHref,
} from '../../../web/src/lib/contact.js';

const none = { telefono: null, email: null, whatsapp: null, sitio_web: null, direccion: null };

describe("the business's contact in the footer", () => {
  it('links a phone as tel: with its digits, keeping a leading +', () => {
    expect(telHref('(0341) 555-1234')).toBe('tel:03415551234');
    expect(telHref('+54 9 341 555-1234')).toBe('tel:+5493415551234');
    expect(telHref('int. 12')).toBeNull();
  });

  it('links WhatsApp to wa.me with the digits only', () => {
    expect(whatsappHref('+5493415551234')).toBe('https://wa.me/5493415551234');
    expect(whatsappHref('5493415551234')).toBe('https://wa.me/5493415551234');
    expect(whatsappHref('+12')).toBeNull();
  });

  it('writes mailto: and the site as people say it', () => {
    expect(mailtoHref('ventas@sur.com.ar')).toBe('mailto:ventas@sur.com.ar');
    expect(mailtoHref('a?b#c@sur.com.ar')).toBe('mailto:a%3Fb%23c@sur.com.ar');
    expect(siteLabel('https://www.sur.com.ar/')).toBe('www.sur.com.ar');
    expect(siteLabel('http://sur.com.ar/tienda/')).toBe('sur.com.ar/tienda');
  });

  it('lists what the business gives, in order, the site opening in a new tab', () => {
    const items = contactItems({
      telefono: '(0341) 555-1234',
      email: 'ventas@sur.com.ar',
      whatsapp: '+5493415551234',
      sitio_web: 'https://sur.com.ar/',
      direccion: 'San Martín 1234, Rosario',
    });
    expect(items.map((item) => [item.label, item.text, item.href, item.external])).toEqual([
      ['Teléfono', '(0341) 555-1234', 'tel:03415551234', false],
      ['WhatsApp', '+5493415551234', 'https://wa.me/5493415551234', true],
      ['E-mail', 'ventas@sur.com.ar', 'mailto:ventas@sur.com.ar', false],
      ['Sitio web', 'sur.com.ar', 'https://sur.com.ar/', true],
      ['Dirección', 'San Martín 1234, Rosario', null, false],
    ]);
    expect(contactItems(none)).toEqual([]);
  });

  it('never makes a link of a site that is not http(s)', () => {
    expect(contactItems({ ...none, sitio_web: 'javascript:alert(1)' })).toEqual([]);
  });
});
