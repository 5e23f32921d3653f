import type { FastifyInstance } from 'fastify';

/**
 * Every answer of the routes in `scope` carries `Cache-Control: no-store` (docs/api.md
 * "Caching"): they hold a person's data or credentials, which no browser cache, shared proxy or
 * back button may keep. Set on the request, before any guard, so refusals carry it too.
 */
export function keepAnswersPrivate(scope: FastifyInstance): void {
  scope.addHook('onRequest', function noStore(_request, reply, done) {
    void reply.header('cache-control', 'no-store');
    done();
  });
}
