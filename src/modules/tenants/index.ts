import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { tenantRoutes } from './routes.js';

/** Whose portal it is: the public listing the login page reads before anyone logs in. */
export function registerTenants(app: FastifyInstance, shared: Shared): void {
  tenantRoutes(app, { directory: shared.directory });
}
