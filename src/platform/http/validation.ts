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

export function installValidation(app: FastifyInstance): void {
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema),
  );
}
