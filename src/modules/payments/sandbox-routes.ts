import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { request as httpRequest } from 'undici';
import { AppError } from '../../platform/errors.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import { signNotification } from './gateways/signature.js';
import { readPaymentSettings } from './settings.js';

const Params = Type.Object({
  tenantId: Type.Integer({ minimum: 1 }),
  sucursalId: Type.Integer({ minimum: 1 }),
  id: Type.String({ format: 'uuid' }),
});
const ResultQuery = Type.Object({
  payment_id: Type.Optional(Type.String({ maxLength: 20 })),
  estado: Type.Optional(Type.String({ maxLength: 20 })),
});
const RESULTS: Record<string, string> = {
  aprobado: 'Pago aprobado: el recibo se genera en segundos (GET /portal/pagos/{id}/recibo).',
  rechazado: 'Pago rechazado: las facturas siguen pendientes.',
  pendiente: 'Pago pendiente de acreditación.',
};
const ActionParams = Type.Object({
  ...Params.properties,
  action: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
});

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(body: string): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Sandbox de pagos</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
.total{font-size:2rem;margin:1rem 0}form{display:inline-block;margin-right:1rem}
button{font-size:1rem;padding:.6rem 1.4rem;border:0;border-radius:.3rem;cursor:pointer}
.ok{background:#1a7f37;color:#fff}.ko{background:#cf222e;color:#fff}.note{color:#666;font-size:.9rem}</style>
</head><body>${body}</body></html>`;
}

/**
 * The sandbox gateway's checkout page (development and demos): Approve / Reject send a real
 * webhook, signed like Mercado Pago's, to the payment's notification URL, then return the payer
 * to the portal. Refused in production unless PORTAL_ENABLE_SANDBOX is set.
 */
export async function sandboxRoutes(
  app: FastifyInstance,
  deps: {
    tenancy: Tenancy;
    enabled: boolean;
    /** The API's own result page at /pagos/resultado; off when the web client serves its own. */
    resultPage: boolean;
  },
): Promise<void> {
  await app.register((scope, _options, ready) => {
    // The page's buttons are plain HTML forms: accept their (empty) urlencoded bodies here only.
    scope.addContentTypeParser('application/x-www-form-urlencoded', (_request, _payload, done) =>
      done(null, {}),
    );
    const routes = scope.withTypeProvider<TypeBoxTypeProvider>();

    async function load(tenantId: number, sucursalId: number, id: string) {
      if (!deps.enabled) throw new AppError('NOT_FOUND', 'El sandbox de pagos está deshabilitado');
      const tenant = await deps.tenancy.resolve(tenantId, sucursalId);
      const row = await tenant.db
        .withSchema('public')
        .selectFrom('portal_sandbox_payments')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) throw new AppError('NOT_FOUND', 'Cobro de sandbox inexistente');
      return { tenant, row };
    }

    routes.get(
      '/portal/sandbox/checkout/:tenantId/:sucursalId/:id',
      { schema: { hide: true, params: Params } },
      async (request, reply) => {
        const { tenantId, sucursalId, id } = request.params;
        const { tenant, row } = await load(tenantId, sucursalId, id);
        const base = `${request.originalUrl.split('?')[0] ?? ''}`;
        const open = row.status === 'pending' && row.expires_at > new Date();
        const actions = open
          ? `<form method="post" action="${escapeHtml(base)}/approve"><button class="ok">Aprobar pago</button></form>
<form method="post" action="${escapeHtml(base)}/reject"><button class="ko">Rechazar pago</button></form>`
          : `<p>Este cobro ya no admite pagos (estado: ${escapeHtml(row.status)}).</p>`;
        void reply.type('text/html; charset=utf-8');
        // A form post's redirect counts as form-action in Chromium: the payer goes back to the
        // pages' origin (the checkout's back URLs), which may not be this one.
        const returns = returnOrigins(row.back_urls);
        void reply.header(
          'content-security-policy',
          `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${returns.join(' ')}`.trimEnd(),
        );
        return page(`<h1>Sandbox de pagos</h1><p>${escapeHtml(tenant.tenantName)}</p>
<p>${escapeHtml(row.description)}</p><p class="total">$ ${escapeHtml(row.amount)}</p>
${actions}<p class="note">Pasarela de prueba: ningún dinero se mueve.</p>`);
      },
    );

    routes.post(
      '/portal/sandbox/checkout/:tenantId/:sucursalId/:id/:action',
      { schema: { hide: true, params: ActionParams } },
      async (request, reply) => {
        const { tenantId, sucursalId, id, action } = request.params;
        const { tenant, row } = await load(tenantId, sucursalId, id);
        const status = action === 'approve' ? 'approved' : 'rejected';
        const changed = await tenant.db
          .withSchema('public')
          .updateTable('portal_sandbox_payments')
          .set({ status, updated_at: new Date() })
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .where('expires_at', '>', new Date())
          .returning('id')
          .executeTakeFirst();
        if (changed) {
          const settings = await readPaymentSettings(tenant);
          const secret = settings.gatewaySettings.get('sandbox')?.get('webhook_secret') ?? '';
          const requestId = randomUUID();
          const notificationUrl = new URL(row.notification_url);
          notificationUrl.searchParams.set('data.id', id);
          notificationUrl.searchParams.set('type', 'payment');
          try {
            const answer = await httpRequest(notificationUrl, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-request-id': requestId,
                'x-signature': signNotification(secret, {
                  dataId: id,
                  requestId,
                  ts: String(Date.now()),
                }),
              },
              body: JSON.stringify({
                action: 'payment.updated',
                type: 'payment',
                data: { id },
                live_mode: false,
              }),
              headersTimeout: 10_000,
              bodyTimeout: 10_000,
            });
            await answer.body.dump();
            request.log.info({ status: answer.statusCode }, 'sandbox webhook delivered');
          } catch (error) {
            // Like a real gateway, the payment stands; the checkout-expiry job reconciles it.
            request.log.warn({ err: error }, 'sandbox webhook not delivered');
          }
        }
        const back = status === 'approved' ? row.back_urls.success : row.back_urls.failure;
        return reply.redirect(back, 303);
      },
    );

    // Development's allowed origin is the API itself, so the payer returns here: without the web
    // client (docs/web.md), whose page then answers this path, a page saying how it went stands in.
    if (deps.resultPage)
      routes.get(
        '/pagos/resultado',
        { schema: { hide: true, querystring: ResultQuery } },
        (request, reply) => {
          if (!deps.enabled)
            throw new AppError('NOT_FOUND', 'El sandbox de pagos está deshabilitado');
          const { payment_id: paymentId = '', estado = '' } = request.query;
          void reply.type('text/html; charset=utf-8');
          void reply.header(
            'content-security-policy',
            "default-src 'none'; style-src 'unsafe-inline'",
          );
          return page(`<h1>Pago ${escapeHtml(paymentId)}</h1>
<p>${escapeHtml(RESULTS[estado] ?? `Estado: ${estado}`)}</p>
<p class="note">Página de desarrollo: en producción el navegador vuelve al portal.</p>`);
        },
      );
    ready();
  });
}

/** The http(s) origins the checkout sends the payer back to, as CSP sources. */
function returnOrigins(backUrls: { success: string; failure: string }): string[] {
  const origins = new Set<string>();
  for (const url of [backUrls.success, backUrls.failure]) {
    try {
      const { protocol, origin } = new URL(url);
      if (protocol === 'http:' || protocol === 'https:') origins.add(origin);
    } catch {
      // Not a URL: the redirect will fail anyway; nothing to allow.
    }
  }
  return [...origins];
}
