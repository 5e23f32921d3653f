/**
 * docs/decisions.md #20: every route answers at `/portal/...` and at `/backend/portal/...` (and the
 * print routes at `/qz/...` and `/backend/qz/...`). Rewriting the URL once before routing keeps
 * one registration per route; `request.originalUrl` still holds what the client sent.
 */
const PREFIX = '/backend';

export function stripBackendPrefix(url: string): string {
  if (url === PREFIX) return '/';
  if (url.startsWith(`${PREFIX}/`) || url.startsWith(`${PREFIX}?`)) {
    const rest = url.slice(PREFIX.length);
    return rest.startsWith('?') ? `/${rest}` : rest;
  }
  return url;
}

/** The URL as the client sent it is under `/backend`: the API's, never the web client's. */
export function hasBackendPrefix(url: string): boolean {
  return url === PREFIX || url.startsWith(`${PREFIX}/`) || url.startsWith(`${PREFIX}?`);
}
