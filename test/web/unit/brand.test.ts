import { describe, expect, it } from 'vitest';
import { pageTitle, resolveApiUrl } from '../../../web/src/lib/brand.js';

describe("the business's own portal", () => {
  it('titles the tab `<page> · <empresa>`, the portal when there is no business', () => {
    expect(pageTitle('Tus facturas', 'Ferretería Sur')).toBe('Tus facturas · Ferretería Sur');
    expect(pageTitle('Portal de clientes', null)).toBe('Portal de clientes · Portal de clientes');
    expect(pageTitle('Tus pagos', '  ')).toBe('Tus pagos · Portal de clientes');
  });

  it("loads the logo from the API's origin, wherever the pages are", () => {
    const logo = '/portal/empresas/1/logo?v=abc';
    expect(resolveApiUrl(logo, '', 'https://portal.sur.com.ar/e/1/ingresar')).toBe(
      'https://portal.sur.com.ar/portal/empresas/1/logo?v=abc',
    );
    // The API elsewhere, behind a prefix that logo_url already carries.
    expect(
      resolveApiUrl(
        '/backend/portal/empresas/1/logo?v=abc',
        'https://api.sur.com.ar/backend',
        'https://portal.sur.com.ar/e/1/',
      ),
    ).toBe('https://api.sur.com.ar/backend/portal/empresas/1/logo?v=abc');
    expect(resolveApiUrl(null, '', 'https://portal.sur.com.ar/')).toBeNull();
    expect(resolveApiUrl('javascript:alert(1)', '', 'https://portal.sur.com.ar/')).toBeNull();
  });
});
