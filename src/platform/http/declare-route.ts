import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { TSchema } from 'typebox';
import { errorResponses } from '../../../contract/envelope.js';
import { routeSchemas, type RouteSchema } from '../../../contract/route-schemas.js';
import {
  errorCodesOf,
  routes,
  type AnswerOf,
  type BodyOf,
  type ParamsOf,
  type QueryOf,
  type RouteKey,
} from '../../../contract/routes.js';

/** A part the route has no schema for is whatever came (the webhook takes any body). */
type Given<T> = [T] extends [undefined] ? unknown : T;

/** What a route's handler sees, from its schemas in the route table. */
export interface RouteGeneric<K extends RouteKey> {
  Params: Given<ParamsOf<K>>;
  Querystring: Given<QueryOf<K>>;
  Body: Given<BodyOf<K>>;
  Reply: AnswerOf<K>;
}

type FastifyOptions<K extends RouteKey> = RouteShorthandOptions<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGeneric<K>
>;

/** What the server adds to the table's entry: the document's words and the route's behaviour. */
export interface DeclareOptions<K extends RouteKey> {
  tags: readonly string[];
  summary: string;
  /** Request headers it validates and documents (the Idempotency-Key). */
  headers?: TSchema;
  config?: FastifyOptions<K>['config'];
  exposeHeadRoute?: boolean;
  preValidation?: FastifyOptions<K>['preValidation'];
}

export type RouteHandler<K extends RouteKey> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGeneric<K>
>;

const BEARER = [{ bearerAuth: [] }];

/** `/portal/pagos/{id}` (the table, the OpenAPI document) -> `/portal/pagos/:id` (Fastify). */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Declares the route `key` of the route table (contract/routes.ts) on `app`: its method and path,
 * its schemas (contract/route-schemas.ts) for validation and the OpenAPI document, the error
 * envelope for each status it lists, and the bearer token in the document when it takes one.
 * The handler is typed from the same schemas. A `bearer` route goes in the protected scope
 * (`shared.protectedRoutes`), whose hooks check the token.
 */
export function declareRoute<K extends RouteKey>(
  app: FastifyInstance,
  key: K,
  options: DeclareOptions<K>,
  handler: RouteHandler<K>,
): void {
  const route = routes[key];
  const { method, path, auth } = route;
  const codes = errorCodesOf(route);
  const schemas: RouteSchema = routeSchemas[key];
  const { tags, summary, headers, ...behaviour } = options;
  app.route<RouteGeneric<K>>({
    ...behaviour,
    method,
    url: fastifyPath(path),
    schema: {
      tags,
      ...(auth === 'bearer' && { security: BEARER }),
      summary,
      ...(headers && { headers }),
      ...(schemas.params && { params: schemas.params }),
      ...(schemas.querystring && { querystring: schemas.querystring }),
      ...(schemas.body && { body: schemas.body }),
      response: { ...schemas.response, ...errorResponses(codes) },
    },
    handler,
    config: { ...behaviour.config, routeKey: key, errorCodes: new Set(codes) },
  });
}
