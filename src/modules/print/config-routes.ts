import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { principalOf } from '../../platform/auth/guard.js';
import type { PrintConfigService } from './config-service.js';

const tags = ['impresion'];
const FIELDS = ['documento', 'impresora', 'papel', 'copias', 'predeterminada'] as const;

/** docs/decisions.md #40: the portal user's print configurations, at /qz/print-config (and /backend/qz/...). */
export function printConfigRoutes(
  app: FastifyInstance,
  deps: { printConfigs: PrintConfigService },
): void {
  const { printConfigs } = deps;

  declareRoute(
    app,
    'listPrintConfigs',
    {
      tags,
      summary: 'The user’s print configurations, by documento, the default first',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.list(tenant, portalUserId, request.query.documento);
      return data;
    },
  );

  declareRoute(
    app,
    'createPrintConfig',
    {
      tags,
      summary: 'Create a print configuration (predeterminada: true replaces the default)',
      config: { expectedFields: FIELDS },
    },
    async (request, reply) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.create(tenant, portalUserId, request.body);
      void reply.code(201);
      return data;
    },
  );

  declareRoute(
    app,
    'getPrintConfig',
    {
      tags,
      summary: 'One print configuration of the user',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.get(tenant, portalUserId, request.params.id);
      return data;
    },
  );

  declareRoute(
    app,
    'updatePrintConfig',
    {
      tags,
      summary: 'Change some fields of a print configuration (at least one)',
      config: { expectedFields: FIELDS },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.update(tenant, portalUserId, request.params.id, request.body);
      return data;
    },
  );

  declareRoute(
    app,
    'deletePrintConfig',
    {
      tags,
      summary: 'Delete a print configuration; answers it as it was',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await printConfigs.remove(tenant, portalUserId, request.params.id);
      return data;
    },
  );
}
