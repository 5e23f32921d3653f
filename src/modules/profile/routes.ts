import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { principalOf } from '../../platform/auth/guard.js';
import type { ProfileService } from './service.js';

const tags = ['perfil'];

export function profileRoutes(app: FastifyInstance, deps: { profile: ProfileService }): void {
  declareRoute(
    app,
    'getProfile',
    {
      tags,
      summary: 'Profile: customer name and identifier (ordcon), contact data, reminders switch',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return await deps.profile.get(tenant, portalUserId);
    },
  );

  declareRoute(
    app,
    'updateProfile',
    {
      tags,
      summary: 'Update e-mail, phone and/or the reminders switch (at least one)',
      config: { expectedFields: ['email', 'telefono', 'avisos_vencimiento'] },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return await deps.profile.update(tenant, portalUserId, request.body);
    },
  );
}
