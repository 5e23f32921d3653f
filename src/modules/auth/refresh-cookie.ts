import type { FastifyReply } from 'fastify';

/** docs/api.md "Browser delivery". */
export const REFRESH_COOKIE = 'portal_refresh_token';

/** docs/decisions.md #12: the cookie's path follows the public prefix, or the browser never sends it back. */
function cookiePath(publicPrefix: string): string {
  return `${publicPrefix}/portal/auth`;
}

export function setRefreshCookie(
  reply: FastifyReply,
  publicPrefix: string,
  token: string,
  maxAgeSeconds: number,
): void {
  void reply.setCookie(REFRESH_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: 'none',
    path: cookiePath(publicPrefix),
    // docs/decisions.md #9: Max-Age always equals the stored lifetime.
    maxAge: maxAgeSeconds,
  });
}

export function clearRefreshCookie(reply: FastifyReply, publicPrefix: string): void {
  void reply.setCookie(REFRESH_COOKIE, '', {
    httpOnly: true,
    secure: true,
    sameSite: 'none',
    path: cookiePath(publicPrefix),
    maxAge: 0,
  });
}
