import { defineGateway } from '../definition.js';
import { SIGNED_WEBHOOK_NOTIFICATIONS } from '../signature.js';
import { createSandboxAdapter } from './adapter.js';
import { createSandboxCheckout } from './checkout.js';
import { sandboxRoutes } from './routes.js';
import {
  parseSandboxSettings,
  SANDBOX,
  SANDBOX_SWITCH,
  sandboxEnabled,
  SETTINGS,
} from './settings.js';

/**
 * The `sandbox` gateway (development and demos): its line of the table. Its own side lives in
 * the API, so it brings its pages (the checkout and its two buttons) and its table with it.
 */
export const sandboxGateway = defineGateway({
  id: SANDBOX,
  label: 'Pasarela de prueba (sandbox)',
  // Signed like Mercado Pago's notifications.
  notifications: SIGNED_WEBHOOK_NOTIFICATIONS,
  settings: SETTINGS,
  parseSettings: (values, context) =>
    sandboxEnabled(context.environment)
      ? parseSandboxSettings(values)
      : {
          ok: false,
          problem: { setting: SANDBOX_SWITCH, reason: 'the sandbox gateway is off in production' },
        },
  create: (settings, context) =>
    createSandboxAdapter(settings, {
      db: context.tenant.db,
      tenantId: context.tenant.tenantId,
      sucursalId: context.tenant.sucursalId,
      publicUrl: context.environment.publicUrl,
    }),
  pages: (app, host) =>
    sandboxRoutes(app, {
      sandbox: createSandboxCheckout({
        tenancy: host.tenancy,
        settings: host.settings,
        enabled: sandboxEnabled(host.environment),
      }),
      resultPage: !host.servesWebClient,
    }),
});
