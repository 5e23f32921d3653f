import type { Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { TSchema } from 'typebox';
import { errorResponses, PdfResponse } from '../../../contract/envelope.js';
import {
  routeSchemas,
  type RouteSchema,
  type RouteSchemas,
} from '../../../contract/route-schemas.js';
import {
  errorCodesOf,
  routes,
  type AnswerOf,
  type BodyOf,
  type DoorName,
  type ParamsOf,
  type QueryOf,
  type RouteFacts,
  type RouteKey,
} from '../../../contract/routes.js';
import type { OnRequestHook, RouteChecks } from '../doors/index.js';
import { noStore } from './private-answers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The doors and the Idempotency-Key checks, opened by the platform before any route. */
    routeChecks?: RouteChecks;
  }
  interface FastifyContextConfig {
    /** The door the route is entered by (every route has one: platform/http/route-doors.ts). */
    door?: DoorName;
    /** Why a public route or a route outside the API needs no credential of the portal's. */
    why?: string;
    /** The route is not an operation of the API (a gateway's page, the reference): why. */
    outsideApi?: string;
  }
}

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
  /** Bytes its body may have, where it is not the server's 100 KB (the CSV of invitations). */
  bodyLimit?: number;
  /**
   * A public route whose answers hold credentials or a person's data (login, a signed link's
   * read): `Cache-Control: no-store`, as every answer of a door that checks a credential has.
   */
  privateAnswers?: true;
}

/** A PDF answer: the declaration sends it with its type, its file name and `no-store`. */
export interface PdfDocument {
  filename: string;
  pdf: Buffer | Readable;
  /** `attachment` saves it (a coupon to print, a legal invoice); `inline` opens it (default). */
  disposition?: 'inline' | 'attachment';
}

type IsPdf<K extends RouteKey> = RouteSchemas[K]['response'] extends { 200: typeof PdfResponse }
  ? true
  : false;

/**
 * What a handler gives back, by the route's success answer: the `data` of an envelope (the
 * declaration wraps it in `{ success: true, data }`), nothing for an envelope without data, a
 * PDF document, or, for bytes and text (a logo, a certificate), the reply it sent.
 */
export type HandlerResult<K extends RouteKey> =
  IsPdf<K> extends true
    ? PdfDocument
    : AnswerOf<K> extends { success: true; data: infer D }
      ? D
      : AnswerOf<K> extends { success: true }
        ? void
        : AnswerOf<K> | FastifyReply;

/** The reply is untyped: a handler returns its answer, and sends bytes or text only by itself. */
export type RouteHandler<K extends RouteKey> = (
  request: FastifyRequest<RouteGeneric<K>>,
  reply: FastifyReply,
) => Promise<HandlerResult<K>>;

/** How the declaration answers what the handler gives, read from the success schema. */
type AnswerKind = 'envelope' | 'success' | 'pdf' | 'as-sent';

function answerKindOf(schemas: RouteSchema): AnswerKind {
  const success = Object.entries(schemas.response).find(([status]) => Number(status) < 300)?.[1];
  if (success === PdfResponse) return 'pdf';
  const properties: unknown = success && 'properties' in success ? success.properties : undefined;
  if (typeof properties !== 'object' || properties === null || !('success' in properties)) {
    return 'as-sent';
  }
  return 'data' in properties ? 'envelope' : 'success';
}

function sendPdf(reply: FastifyReply, document: PdfDocument): FastifyReply {
  const disposition = document.disposition ?? 'inline';
  return reply
    .header('content-type', 'application/pdf')
    .header('content-disposition', `${disposition}; filename="${document.filename}"`)
    .header('cache-control', 'no-store')
    .send(document.pdf);
}

/**
 * The success envelope, for the one kind of route that answers it besides something else (a page
 * for a browser, JSON for a mail client): every other route returns its data and the declaration
 * wraps it.
 */
export function envelopeOf<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** `/portal/pagos/{id}` (the table, the OpenAPI document) -> `/portal/pagos/:id` (Fastify). */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Declares the route `key` of the route table (contract/routes.ts) on `app`: its method and path;
 * its door's checks (the customer's token and per-user limit, private answers) and, where its
 * config names it, the Idempotency-Key, as the route's own hooks; its schemas
 * (contract/route-schemas.ts) for validation and the OpenAPI document, with the error envelope
 * for each status it lists and its door's security. The handler is typed from the same schemas
 * and returns what the route answers (HandlerResult): the declaration writes the envelope or the
 * PDF's headers.
 */
export function declareRoute<K extends RouteKey>(
  app: FastifyInstance,
  key: K,
  options: DeclareOptions<K>,
  handler: RouteHandler<K>,
): void {
  const checks = app.routeChecks;
  if (!checks) throw new Error(`declareRoute(${key}): the platform's doors are not open yet`);
  const route = routes[key];
  const { method, path } = route;
  const door = checks.doors[route.door];
  const codes = errorCodesOf(route);
  const schemas: RouteSchema = routeSchemas[key];
  const { tags, summary, headers, privateAnswers, ...behaviour } = options;
  const idempotency = behaviour.config?.idempotency && checks.idempotency;
  if (behaviour.config?.idempotency && !idempotency) {
    throw new Error(`declareRoute(${key}): the Idempotency-Key's checks are not open`);
  }
  const onRequest: OnRequestHook[] = [
    ...(door.privateAnswers || privateAnswers ? [noStore] : []),
    ...door.onRequest,
  ];
  app.route<RouteGeneric<K>>({
    ...behaviour,
    method,
    url: fastifyPath(path),
    schema: {
      tags,
      ...(door.security && { security: door.security }),
      summary,
      ...(headers && { headers }),
      ...(schemas.params && { params: schemas.params }),
      ...(schemas.querystring && { querystring: schemas.querystring }),
      ...(schemas.body && { body: schemas.body }),
      response: { ...schemas.response, ...errorResponses(codes, (route as RouteFacts).statuses) },
    },
    onRequest,
    preHandler: [...door.preHandler, ...(idempotency ? [idempotency.preHandler] : [])],
    ...(idempotency && {
      onSend: [idempotency.onSend],
      onResponse: [idempotency.onResponse],
    }),
    handler: answering(answerKindOf(schemas), handler),
    config: {
      ...behaviour.config,
      routeKey: key,
      errorCodes: new Set(codes),
      door: route.door,
      ...(route.door === 'public' && { why: route.why }),
    },
  });
}

/**
 * The handler Fastify runs: the module's, its result answered by the route's kind. What it
 * answers follows from the same schemas the kind is read from (HandlerResult), which the
 * compiler cannot follow through a generic key: hence the casts to the route's answer and to a
 * PDF document, both read from the schema the kind came from.
 */
function answering<K extends RouteKey>(
  kind: AnswerKind,
  handler: RouteHandler<K>,
): RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGeneric<K>
> {
  async function answer(
    request: FastifyRequest<RouteGeneric<K>>,
    reply: FastifyReply,
  ): Promise<unknown> {
    const result: unknown = await handler(request, reply);
    switch (kind) {
      case 'envelope':
        return envelopeOf(result);
      case 'success':
        return { success: true };
      case 'pdf':
        return sendPdf(reply, result as PdfDocument);
      case 'as-sent':
        return result;
    }
  }
  return answer as RouteHandlerMethod<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGeneric<K>
  >;
}
