/*
 * What the OpenAPI document adds to what @fastify/swagger generates from the route schemas, so
 * that stricter readers than swagger-parser accept it (Redocly's recommended rules,
 * test/platform/openapi-lint.test.ts). The document only: nothing here changes how a request is
 * validated or what a route answers.
 */
import { routes } from '../../../contract/routes.js';

/**
 * Each operation's `operationId` (what a generated client names its functions) is its key in
 * the route table, found by method and path as the document spells them.
 */
const OPERATION_IDS: ReadonlyMap<string, string> = new Map(
  Object.entries(routes).map(([operationId, route]) => [
    `${route.method} ${route.path}`,
    operationId,
  ]),
);

/**
 * The servers a client may address: the document's own host, and the same routes under the
 * `/backend` prefix (docs/api.md). Relative, so the document is right wherever it is served.
 */
const SERVERS = [
  { url: '/', description: 'This host' },
  { url: '/backend', description: 'The same routes under the /backend prefix' },
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Ajv keywords the routes validate with that are not JSON Schema: the document drops them and
 * says in words what they require. `format: date` with `formatMinimum` (contract/statement.ts).
 */
const AJV_ONLY: Readonly<Record<string, (value: unknown) => string>> = {
  formatMinimum: (value) => `Not before ${String(value)}.`,
  formatMaximum: (value) => `Not after ${String(value)}.`,
  formatExclusiveMinimum: (value) => `After ${String(value)}.`,
  formatExclusiveMaximum: (value) => `Before ${String(value)}.`,
};

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of `value` without the Ajv-only keywords, their meaning added to `description`. */
function withoutAjvKeywords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAjvKeywords);
  if (!isObject(value)) return value;
  const copy: JsonObject = {};
  const notes: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const describe = AJV_ONLY[key];
    if (describe) notes.push(describe(inner));
    else copy[key] = withoutAjvKeywords(inner);
  }
  if (notes.length > 0) {
    const description = typeof copy.description === 'string' ? copy.description : '';
    copy.description = [description, ...notes].filter((part) => part !== '').join(' ');
  }
  return copy;
}

/**
 * The generated document, finished: servers, an operationId from the route table, `security: []`
 * on an operation that declares none (public: no token), and no Ajv-only keyword.
 */
export function finishOpenApiDocument<T extends object>(generated: T): T {
  const document = withoutAjvKeywords(generated) as JsonObject;
  document.servers = SERVERS;
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const operationId = OPERATION_IDS.get(`${method.toUpperCase()} ${path}`);
      if (operationId !== undefined) operation.operationId = operationId;
      operation.security ??= [];
    }
  }
  return document as T;
}
