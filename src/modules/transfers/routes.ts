import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { declareRoute } from '../../platform/http/declare-route.js';
import { notificationScope, textRecord } from '../../platform/http/notification-scope.js';
import type { TransferAccounts } from './accounts.js';
import type { TransferWebhook } from './webhook.js';

const tags = ['transferencias'];

/** The customer's own account: the customer's door, and a pay link's (paying is all it does). */
export function transferAccountRoutes(
  app: FastifyInstance,
  deps: { accounts: TransferAccounts },
): void {
  declareRoute(
    app,
    'getTransferAccount',
    {
      tags,
      summary:
        "The customer's own CVU and alias at the business's transfer provider, assigned on the first call",
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return await deps.accounts.accountOf(tenant, portalUserId);
    },
  );
}

/** The providers' notifications, public: the header token the portal registered is the credential. */
export function transferWebhookRoutes(
  app: FastifyInstance,
  deps: { webhook: TransferWebhook },
): void {
  // The token decides first, never the body: an empty or non-JSON body reaches the handler as
  // null, so a wrong token is a 401 whatever came with it (as the payment webhook).
  notificationScope(app, (scope) =>
    declareRoute(
      scope,
      'receiveTransferNotification',
      {
        tags,
        summary:
          "A transfer provider's notification; authenticated by the header token, then read back from the provider",
      },
      async (request) => {
        const outcome = await deps.webhook(
          {
            proveedor: request.params.proveedor,
            tenantId: request.params.tenant_id,
            aviso: request.params.aviso,
            headers: textRecord(request.headers),
            body: request.body ?? null,
          },
          { ip: request.ip },
        );
        request.log.info({ outcome }, 'transfer notification');
        return;
      },
    ),
  );
}
