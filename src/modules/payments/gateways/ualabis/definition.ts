import { defineGateway } from '../definition.js';
import { createUalaBisAdapter } from './adapter.js';
import { UALA_BIS_NOTIFICATIONS } from './notification.js';
import { OFFICIAL_HOSTS, parseUalaBisSettings, SETTINGS, UALA_BIS } from './settings.js';

/** Ualá Bis, API Cobros Online v2 (docs/erp.md "Payment gateways"): its line of the table. */
export const ualaBisGateway = defineGateway({
  id: UALA_BIS,
  label: 'Ualá Bis',
  notifications: UALA_BIS_NOTIFICATIONS,
  settings: SETTINGS,
  officialHosts: OFFICIAL_HOSTS,
  // Its access token is worth keeping between calls.
  keepsAdapter: true,
  parseSettings: (values, context) =>
    parseUalaBisSettings(values, context.environment.allowedOrigins),
  create: (settings, context) => createUalaBisAdapter(settings, context.environment),
});
