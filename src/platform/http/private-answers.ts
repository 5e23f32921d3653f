import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * `Cache-Control: no-store` on every answer of a route whose answers hold a person's data or
 * credentials (docs/api.md "Caching"), which no browser cache, shared proxy or back button may
 * keep: the routes of a door that checks a credential, and the public routes that say so
 * (declareRoute's `privateAnswers`). Set on the request, before any check, so refusals carry it
 * too.
 */
export function noStore(
  _request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  void reply.header('cache-control', 'no-store');
  done();
}
