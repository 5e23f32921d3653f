import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { declareRoute, envelopeOf } from '../../platform/http/declare-route.js';
import { LIMITS } from '../../platform/rate-limit.js';
import { confirmPage, donePage, type UnsubscribePage } from './page.js';
import type { Unsubscribe } from './unsubscribe.js';

const tags = ['avisos'];
/** RFC 8058's body is a few bytes; a form of a kilobyte is already generous. */
const FORM_BODY_LIMIT = 1024;

function sendPage(reply: FastifyReply, page: UnsubscribePage): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', page.contentSecurityPolicy)
    .send(page.html);
}

/** A person's browser (the page's button) asks for HTML; a mail client's one-click POST does not. */
function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * The link every reminder carries (List-Unsubscribe, RFC 8058), public: the signed token is the
 * credential. GET shows a page whose button posts, and changes nothing (mail scanners fetch
 * links); POST with `List-Unsubscribe=One-Click` turns the account's reminders off.
 */
export async function unsubscribeRoutes(
  app: FastifyInstance,
  deps: { unsubscribe: Unsubscribe },
): Promise<void> {
  await app.register((scope, _options, ready) => {
    // The API takes JSON only (docs/decisions.md #23); RFC 8058 posts a form, so this scope, and
    // only this scope, reads one.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      },
    );
    declareRoute(
      scope,
      'getUnsubscribePage',
      {
        tags,
        summary: 'The unsubscribe link’s page: a button that posts; changes nothing (public)',
        privateAnswers: true,
        config: { rateLimit: LIMITS.unsubscribePerIp },
      },
      async (request, reply) => {
        const { token } = request.query;
        const { tenantName } = await deps.unsubscribe.confirmation(token);
        // A relative action keeps whatever path and prefix the link came by.
        return sendPage(reply, confirmPage(tenantName, `?token=${encodeURIComponent(token)}`));
      },
    );

    declareRoute(
      scope,
      'unsubscribeFromReminders',
      {
        tags,
        summary: 'One-click unsubscribe (RFC 8058): reminders off for the token’s account (public)',
        privateAnswers: true,
        config: { rateLimit: LIMITS.unsubscribePerIp },
      },
      async (request, reply) => {
        const { tenantName } = await deps.unsubscribe.unsubscribe(request.query.token);
        if (wantsHtml(request)) return sendPage(reply, donePage(tenantName));
        return reply.send(envelopeOf({ avisos_vencimiento: false as const }));
      },
    );
    ready();
  });
}
