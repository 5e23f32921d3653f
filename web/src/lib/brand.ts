/**
 * The business's own portal, the parts that are words and addresses: the tab's title and where
 * the logo is. Pure, tested in test/web/unit/brand.test.ts.
 */

/** What the tab says without a business (the landing page, an unknown tenant). */
export const PORTAL_NAME = 'Portal de clientes';

/** `<page> · <empresa>`, so a customer with several tabs open sees whose portal each is. */
export function pageTitle(page: string, empresa: string | null | undefined): string {
  const name = empresa?.trim();
  return `${page} · ${name || PORTAL_NAME}`;
}

/**
 * `logo_url` (a path under the API's public prefix, e.g. `/portal/empresas/1/logo?v=…`) as an
 * address the browser can load: against the API's origin when the API is elsewhere
 * (`apiBaseUrl`), else against the page. Only http(s) comes out; anything else is null.
 */
export function resolveApiUrl(
  value: string | null | undefined,
  apiBaseUrl: string,
  pageHref: string,
): string | null {
  if (!value) return null;
  try {
    const url = new URL(value, apiBaseUrl ? new URL(apiBaseUrl, pageHref).href : pageHref);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
