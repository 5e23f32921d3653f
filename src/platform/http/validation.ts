import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * Two validators. Bodies are JSON and get no coercion: `true` must not become 1, `null` must not
 * become 0 or "", and unknown fields are refused, never silently dropped (additionalProperties
 * is an error, not a filter). Query strings, params and headers are text, so they are coerced.
 */
function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: true,
    ...options,
  });
  addFormats.default(ajv);
  // OpenAPI-only annotations carried by route schemas.
  ajv.addKeyword('example');
  return ajv;
}

/*
 * One pair for the process, not one per app: Ajv keeps what it compiled by schema object, and
 * route schemas are module constants, so an app built again (the tests build hundreds) reuses
 * the validators instead of compiling every route's again.
 */
const bodyAjv = createAjv({ coerceTypes: false });
const textAjv = createAjv({ coerceTypes: 'array' });

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema),
  );
}

/**
 * A body schema's validator outside a route (a worker thread that parses a body itself), by the
 * routes' own rules; its first error reads as Fastify words a route's (`body/path message`).
 */
export function compileBodyValidator(schema: object): (data: unknown) => string | undefined {
  const validate = bodyAjv.compile(schema);
  return (data) => {
    if (validate(data)) return undefined;
    const [error] = validate.errors ?? [];
    return `body${error?.instancePath ?? ''} ${error?.message ?? 'no es válido'}`;
  };
}
