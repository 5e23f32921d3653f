import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';
import { observeEveryAnswer } from './every-answer.js';

/** Each answered request's duration, by route pattern, method and status. */
export function installRequestMetrics(app: FastifyInstance, metrics: Pick<Metrics, 'request'>) {
  // The route's pattern, never the raw URL: ids in paths would make a series per payment. The
  // router's refusals before routing count too (every-answer.ts), as unmatched like a 404.
  observeEveryAnswer(app, function observeRequest(request, statusCode, ms) {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.request(route, request.method, statusCode, ms / 1000);
  });
}
