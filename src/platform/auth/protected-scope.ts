import type { FastifyBaseLogger, FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { SystemDatabase } from '../db/types.js';
import { keepAnswersPrivate } from '../http/private-answers.js';
import { installIdempotency } from '../idempotency/http.js';
import type { AccessTokens } from '../security/tokens.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import { createJwtGuard } from './guard.js';
import type { SessionVersions } from './session-versions.js';

/**
 * The scope of the protected routes, protected by default: its hooks keep every answer private,
 * check the access token, apply the per-user limit and, where a route names it, the
 * Idempotency-Key, before any route declared in it; a new route cannot forget them
 * (test/platform/route-guard.test.ts lists every route). The routes are declared by
 * `declarations`, run inside the scope's plugin after its hooks (Fastify adds hooks and routes
 * to a scope as its plugin loads: a route added to a scope later would miss them).
 */
export async function registerProtectedScope(
  app: FastifyInstance,
  deps: {
    tokens: AccessTokens;
    tenancy: Tenancy;
    versions: SessionVersions;
    perUserLimit: preHandlerAsyncHookHandler;
    systemDb: Kysely<SystemDatabase>;
    clock: Clock;
    log: FastifyBaseLogger;
    /** A dead process's Idempotency-Key claim expires after this long. */
    idempotencyLockMs: number;
  },
  declarations: readonly ((authed: FastifyInstance) => void)[],
): Promise<void> {
  await app.register((scope, _options, done) => {
    keepAnswersPrivate(scope);
    scope.addHook('onRequest', createJwtGuard(deps.tokens, deps.tenancy, deps.versions));
    scope.addHook('preHandler', deps.perUserLimit);
    // docs/api.md "Idempotency-Key" on the routes that name it; after the guard and the limit.
    installIdempotency(scope, {
      systemDb: deps.systemDb,
      clock: deps.clock,
      log: deps.log,
      lockTtlMs: deps.idempotencyLockMs,
    });
    for (const declare of declarations) declare(scope);
    done();
  });
}
