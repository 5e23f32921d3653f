/**
 * Where a gateway URL read from a tenant's `ini` may point (docs/erp.md "Payment gateways").
 * Tenants do not choose where the API connects: a tenant administrator who could aim `base_url`
 * at an internal host would have the API call it and keep the answer where the tenant reads it.
 * So a URL is used only when it is https on that gateway's official hosts, or its origin is one
 * the operator listed in PORTAL_GATEWAY_ALLOWED_ORIGINS (sandboxes, local fakes). Each gateway's
 * official hosts are in its definition (`officialHosts`).
 */

export type GatewayUrlVerdict =
  | {
      allowed: true;
      /** The URL as parsed, so what was checked is what gets called. */ url: string;
    }
  | {
      allowed: false;
      /** Says why without repeating the URL (it may hold secrets). */ reason: string;
    };

/**
 * Whether a configured gateway URL may be called. `allowedOrigins` are origins as config.ts
 * normalizes them (`scheme://host[:port]`, lower case, no default port).
 */
export function checkGatewayUrl(
  value: string,
  officialHosts: readonly string[],
  allowedOrigins: readonly string[],
): GatewayUrlVerdict {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { allowed: false, reason: 'not a URL' };
  }
  if (url.username !== '' || url.password !== '') {
    return { allowed: false, reason: 'credentials in the URL' };
  }
  // Paths are appended to it: a query or fragment would swallow them.
  if (url.search !== '' || url.hash !== '') {
    return { allowed: false, reason: 'a query or fragment in a base URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { allowed: false, reason: 'neither http nor https' };
  }
  if (allowedOrigins.includes(url.origin)) return { allowed: true, url: url.href };
  if (url.protocol !== 'https:') {
    return { allowed: false, reason: 'not https, and its origin is not an allowed one' };
  }
  if (url.port !== '' || !officialHosts.includes(url.hostname)) {
    return { allowed: false, reason: 'not an official host, and its origin is not an allowed one' };
  }
  return { allowed: true, url: url.href };
}
