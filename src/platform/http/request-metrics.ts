import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

/** Each answered request's duration, by route pattern, method and status. */
export function installRequestMetrics(app: FastifyInstance, metrics: Pick<Metrics, 'request'>) {
  // The route's pattern, never the raw URL: ids in paths would make a series per payment.
  // A callback hook, not an async one: no promise per request on the hottest path.
  app.addHook('onResponse', function observeRequest(request, reply, done) {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.request(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
