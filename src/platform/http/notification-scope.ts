import type { FastifyInstance } from 'fastify';

/**
 * A scope for a provider's notification route, whose body never decides its answer: what the
 * provider sends is read as text and parsed leniently (empty, malformed or non-JSON reaches the
 * handler as null) instead of Fastify's 400/415 first, so the route's own credential (a URL
 * token, a header token, a signature) is always what is checked (docs/decisions.md #32).
 */
export function notificationScope(
  app: FastifyInstance,
  declare: (scope: FastifyInstance) => void,
): void {
  void app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, parsed) => {
      parsed(null, parseLenientJson(String(body)));
    });
    declare(scope);
    done();
  });
}

function parseLenientJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Headers or a query as text: the first of repeated values, non-text values left out. */
export function textRecord(value: unknown): Record<string, string | undefined> {
  const record: Record<string, string | undefined> = {};
  if (typeof value !== 'object' || value === null) return record;
  for (const [key, raw] of Object.entries(value)) {
    const first: unknown = Array.isArray(raw) ? raw[0] : raw;
    if (typeof first === 'string') record[key] = first;
  }
  return record;
}
