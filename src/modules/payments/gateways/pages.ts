import type { FastifyInstance } from 'fastify';
import type { GatewayHost } from './definition.js';
import { GATEWAYS } from './table.js';

/**
 * The pages of the gateways whose own side the API serves (the sandbox's checkout), each
 * registered by its definition; a gateway without pages has none.
 */
export async function registerGatewayPages(app: FastifyInstance, host: GatewayHost): Promise<void> {
  for (const definition of GATEWAYS.values()) await definition.pages?.(app, host);
}
