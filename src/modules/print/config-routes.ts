import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { errorResponses } from '../../../contract/envelope.js';
import type { PrintConfigService } from './config-service.js';
import {
  PrintConfigCreateBody,
  PrintConfigListResponse,
  PrintConfigParams,
  PrintConfigQuery,
  PrintConfigResponse,
  PrintConfigUpdateBody,
} from '../../../contract/print.js';

const tags = ['impresion'];
const security = [{ bearerAuth: [] }];
const FIELDS = ['documento', 'impresora', 'papel', 'copias', 'predeterminada'] as const;

/** docs/decisions.md #40: the portal user's print configurations, at /qz/print-config (and /backend/qz/...). */
export function printConfigRoutes(
  authed: FastifyInstance,
  deps: { printConfigs: PrintConfigService },
): void {
  const routes = authed.withTypeProvider<TypeBoxTypeProvider>();
  const { printConfigs } = deps;

  routes.get(
    '/qz/print-config',
    {
      schema: {
        tags,
        security,
        summary: 'The user’s print configurations, by documento, the default first',
        querystring: PrintConfigQuery,
        response: { 200: PrintConfigListResponse, ...errorResponses(401, 422, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.list(tenant, portalUserId, request.query.documento);
      return { success: true as const, data };
    },
  );

  routes.post(
    '/qz/print-config',
    {
      config: { expectedFields: FIELDS },
      schema: {
        tags,
        security,
        summary: 'Create a print configuration (predeterminada: true replaces the default)',
        body: PrintConfigCreateBody,
        response: { 201: PrintConfigResponse, ...errorResponses(401, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.create(tenant, portalUserId, request.body);
      return reply.status(201).send({ success: true as const, data });
    },
  );

  routes.get(
    '/qz/print-config/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One print configuration of the user',
        params: PrintConfigParams,
        response: { 200: PrintConfigResponse, ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.get(tenant, portalUserId, request.params.id);
      return { success: true as const, data };
    },
  );

  routes.put(
    '/qz/print-config/:id',
    {
      config: { expectedFields: FIELDS },
      schema: {
        tags,
        security,
        summary: 'Change some fields of a print configuration (at least one)',
        params: PrintConfigParams,
        body: PrintConfigUpdateBody,
        response: { 200: PrintConfigResponse, ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.update(tenant, portalUserId, request.params.id, request.body);
      return { success: true as const, data };
    },
  );

  routes.delete(
    '/qz/print-config/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a print configuration; answers it as it was',
        params: PrintConfigParams,
        response: { 200: PrintConfigResponse, ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.remove(tenant, portalUserId, request.params.id);
      return { success: true as const, data };
    },
  );
}
