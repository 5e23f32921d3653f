import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../../../contract/error-codes.js';
import type { RouteKey } from '../../../contract/routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's key in the route table (declareRoute sets it). */
    routeKey?: RouteKey;
    /** Every code the route table lets the route answer (errorCodesOf). */
    errorCodes?: ReadonlySet<ErrorCode>;
  }
}

const CODE = /"code":"([A-Z_]+)"/;

/**
 * The route table says which error codes each route answers, and the OpenAPI document and the
 * web client's types are made from it. An error answer whose code its route does not declare is
 * logged; where `refuse` is on (tests, PORTAL_DEV_REFUSE_UNDECLARED_CODES) it becomes a 500 that
 * names the route and the code, so the test that met it fails until the table says it.
 */
export function installUndeclaredCodeCheck(app: FastifyInstance, refuse: boolean): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    const { routeKey, errorCodes } = request.routeOptions.config;
    if (routeKey === undefined || errorCodes === undefined) return payload;
    const code = CODE.exec(payload)?.[1];
    if (code === undefined || errorCodes.has(code as ErrorCode)) return payload;
    request.log.error({ route: routeKey, code }, 'an error code its route does not declare');
    if (!refuse) return payload;
    void reply.code(500);
    return JSON.stringify({
      success: false,
      error: `${routeKey} answered ${code}, which contract/routes.ts does not give it`,
      code: 'INTERNAL_ERROR',
    });
  });
}
