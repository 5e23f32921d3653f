import { defineGateway } from '../definition.js';
import { SIGNED_WEBHOOK_NOTIFICATIONS } from '../signature.js';
import { createMercadoPagoAdapter } from './adapter.js';
import { MERCADO_PAGO, OFFICIAL_HOSTS, parseMercadoPagoSettings, SETTINGS } from './settings.js';

/** Mercado Pago Checkout Pro (docs/erp.md "Payment gateways"): its line of the table. */
export const mercadoPagoGateway = defineGateway({
  id: MERCADO_PAGO,
  label: 'Mercado Pago',
  // `type`/`data.id`, signed with `x-signature`.
  notifications: SIGNED_WEBHOOK_NOTIFICATIONS,
  settings: SETTINGS,
  officialHosts: OFFICIAL_HOSTS,
  parseSettings: (values, context) =>
    parseMercadoPagoSettings(values, context.environment.allowedOrigins),
  create: (settings, context) => createMercadoPagoAdapter(settings, context.environment),
});
