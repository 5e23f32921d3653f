import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { outsideApi } from '../../../../platform/http/route-doors.js';
import type { SandboxCheckoutService } from './checkout.js';
import { checkoutPage, resultPage, type SandboxPage } from './page.js';

const Params = Type.Object({
  tenantId: Type.Integer({ minimum: 1 }),
  sucursalId: Type.Integer({ minimum: 1 }),
  id: Type.String({ format: 'uuid' }),
});
const ResultQuery = Type.Object({
  payment_id: Type.Optional(Type.String({ maxLength: 20 })),
  estado: Type.Optional(Type.String({ maxLength: 20 })),
});
const ActionParams = Type.Object({
  ...Params.properties,
  action: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
});

function sendPage(reply: FastifyReply, page: SandboxPage): string {
  void reply.type('text/html; charset=utf-8');
  void reply.header('content-security-policy', page.contentSecurityPolicy);
  return page.html;
}

/**
 * The sandbox gateway's checkout page (development and demos): Approve / Reject send a real
 * webhook, signed like Mercado Pago's, to the payment's notification URL, then return the payer
 * to the portal. Refused in production unless PORTAL_ENABLE_SANDBOX is set.
 */
export async function sandboxRoutes(
  app: FastifyInstance,
  deps: {
    sandbox: SandboxCheckoutService;
    /** The API's own result page at /pagos/resultado; off when the web client serves its own. */
    resultPage: boolean;
  },
): Promise<void> {
  const { sandbox } = deps;
  await app.register((scope, _options, ready) => {
    // The page's buttons are plain HTML forms: accept their (empty) urlencoded bodies here only.
    scope.addContentTypeParser('application/x-www-form-urlencoded', (_request, _payload, done) =>
      done(null, {}),
    );
    const routes = scope.withTypeProvider<TypeBoxTypeProvider>();

    routes.get(
      '/portal/sandbox/checkout/:tenantId/:sucursalId/:id',
      {
        schema: { hide: true, params: Params },
        config: outsideApi('the sandbox gateway’s own checkout page: a gateway’s, no portal token'),
      },
      async (request, reply) => {
        const { tenantId, sucursalId, id } = request.params;
        const checkout = await sandbox.checkout(tenantId, sucursalId, id);
        return sendPage(reply, checkoutPage(checkout, request.originalUrl.split('?')[0] ?? ''));
      },
    );

    routes.post(
      '/portal/sandbox/checkout/:tenantId/:sucursalId/:id/:action',
      {
        schema: { hide: true, params: ActionParams },
        config: outsideApi('the sandbox checkout page’s buttons: a gateway’s, no portal token'),
      },
      async (request, reply) => {
        const { tenantId, sucursalId, id, action } = request.params;
        const back = await sandbox.decide(tenantId, sucursalId, id, action, request.log);
        return reply.redirect(back, 303);
      },
    );

    // Development's allowed origin is the API itself, so the payer returns here: without the web
    // client (docs/web.md), whose page then answers this path, a page saying how it went stands in.
    if (deps.resultPage)
      routes.get(
        '/pagos/resultado',
        {
          schema: { hide: true, querystring: ResultQuery },
          config: outsideApi('development’s stand-in for the web client’s result page'),
        },
        (request, reply) => {
          sandbox.assertEnabled();
          const { payment_id: paymentId = '', estado = '' } = request.query;
          return sendPage(reply, resultPage(paymentId, estado));
        },
      );
    ready();
  });
}
