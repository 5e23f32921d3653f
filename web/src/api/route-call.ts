/**
 * A call of a route of the route table (contract/routes.ts): its method and path come from the
 * entry, and what it sends (params, query, body) and what it answers are typed from the route's
 * schemas, so a field or a path renamed in contract/ fails `npm run check` here. The table is
 * plain data at run time (methods and paths); its schemas are types only. Knows nothing of
 * sessions (session/session.ts adds the token); tested with a fake fetch in
 * test/web/unit/route-call.test.ts.
 */
import type {
  BodyOf,
  DataOf,
  ErrorCodeOf,
  ParamsOf,
  QueryOf,
  Route,
  RouteFacts,
  RouteKey,
} from '../../../contract/routes.js';
import { ApiError, callApi, callApiBlob, type CallOptions, type FetchLike } from './http.js';

/** What a call of route K sends: each of params, query and body only when the route takes it. */
export type RouteInput<K extends RouteKey> = (ParamsOf<K> extends undefined
  ? { params?: never }
  : { params: ParamsOf<K> }) &
  (QueryOf<K> extends undefined ? { query?: never } : { query?: QueryOf<K> }) &
  (BodyOf<K> extends undefined ? { body?: never } : { body: BodyOf<K> });

/** What a call may add to the route's input. */
export type CallExtras = Pick<
  CallOptions,
  'token' | 'tenant' | 'signal' | 'idempotencyKey' | 'keepalive' | 'credentials' | 'text'
>;

/** The input argument, optional when the route needs none. */
export type RouteArgs<K extends RouteKey, Extra = CallExtras> =
  object extends RouteInput<K> ? [input?: RouteInput<K> & Extra] : [input: RouteInput<K> & Extra];

/** What any route's input is at run time (each route's is typed by RouteInput). */
export interface AnyInput extends CallExtras {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/** The defined fields of params or a query, in their order. */
function fieldsOf(value: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (typeof value !== 'object' || value === null) return fields;
  for (const [name, field] of Object.entries(value)) {
    if (typeof field === 'string' || typeof field === 'number' || typeof field === 'boolean')
      fields.set(name, String(field));
  }
  return fields;
}

/** `/portal/pagos/{id}` with `{ id: 7 }` and `{ a: 1 }` -> `/portal/pagos/7?a=1` (undefined left out). */
export function routeUrl(path: string, input: Pick<AnyInput, 'params' | 'query'> = {}): string {
  const params = fieldsOf(input.params);
  const filled = path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params.get(name);
    if (value === undefined) throw new Error(`${path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams([...fieldsOf(input.query)]).toString();
  return search === '' ? filled : `${filled}?${search}`;
}

/**
 * The fetch options of a call: the route's method, and a JSON body for a POST or PUT (`{}` when
 * the route reads none, as logout: the API takes JSON bodies only), unless the call sends a
 * text body of its own (`text`: the console's CSV of invitations).
 */
function optionsOf(route: RouteFacts, input: AnyInput): CallOptions {
  const { params: _params, query: _query, body, ...extras } = input;
  const sendsBody = (route.method === 'POST' || route.method === 'PUT') && !extras.text;
  return { ...extras, method: route.method, body: body ?? (sendsBody ? {} : undefined) };
}

/**
 * A call of `route` as its input says, answering `T`: the untyped door under callRoute and the
 * session's calls, which pair `T` with the route from the table (DataOf).
 */
export function sendRoute<T>(
  fetchFn: FetchLike,
  base: string,
  route: RouteFacts,
  input: AnyInput = {},
): Promise<T> {
  return callApi<T>(fetchFn, base, routeUrl(route.path, input), optionsOf(route, input));
}

/** A file route's bytes (a PDF unless `mediaType` says otherwise), or ApiError. */
export function sendRouteBlob(
  fetchFn: FetchLike,
  base: string,
  route: RouteFacts,
  input: AnyInput = {},
  mediaType?: string,
): Promise<Blob> {
  return callApiBlob(
    fetchFn,
    base,
    routeUrl(route.path, input),
    optionsOf(route, input),
    mediaType,
  );
}

/** Route K's `data`, or ApiError (http.ts). */
export function callRoute<K extends RouteKey>(
  fetchFn: FetchLike,
  base: string,
  route: Route<K>,
  ...[input]: RouteArgs<K>
): Promise<DataOf<K>> {
  return sendRoute<DataOf<K>>(fetchFn, base, route, input);
}

/**
 * Whether `error` is an answer of `route` with one of `codes`. Each code must be one the route
 * table gives the route (ErrorCodeOf): a code renamed or taken from the route fails the typecheck
 * where a page relies on it.
 */
export function failedWith<K extends RouteKey>(
  error: unknown,
  _route: Route<K>,
  ...codes: readonly ErrorCodeOf<K>[]
): boolean {
  return error instanceof ApiError && codes.some((code) => code === error.code);
}
