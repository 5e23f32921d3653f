import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { errorResponses } from '../../../contract/envelope.js';
import { ProfileResponse, ProfileUpdateBody } from '../../../contract/profile.js';
import type { ProfileService } from './service.js';

const tags = ['perfil'];
const security = [{ bearerAuth: [] }];

export function profileRoutes(authed: FastifyInstance, deps: { profile: ProfileService }): void {
  const routes = authed.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/portal/perfil',
    {
      schema: {
        tags,
        security,
        summary: 'Profile: customer name and identifier (ordcon), contact data, reminders switch',
        response: { 200: ProfileResponse, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return { success: true as const, data: await deps.profile.get(tenant, portalUserId) };
    },
  );

  routes.put(
    '/portal/perfil',
    {
      config: { expectedFields: ['email', 'telefono', 'avisos_vencimiento'] },
      schema: {
        tags,
        security,
        summary: 'Update e-mail, phone and/or the reminders switch (at least one)',
        body: ProfileUpdateBody,
        response: { 200: ProfileResponse, ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return {
        success: true as const,
        data: await deps.profile.update(tenant, portalUserId, request.body),
      };
    },
  );
}
