import { checkGatewayUrl } from '../../../../platform/providers/url-policy.js';
import { isRecord, stringField } from '../../../../platform/providers/http.js';
import type { TransferProviderDefinition } from '../definition.js';
import { createCucuruClient } from './client.js';

const ID = 'cucuru';
const DEFAULT_BASE_URL = 'https://api.cucuru.com/app/v1';
const OFFICIAL_HOSTS = ['api.cucuru.com'] as const;
/** Its `portal.transferencias.cucuru.*` keys (docs/erp.md). */
const SETTINGS = ['api_key', 'collector_id', 'base_url', 'webhook_token'] as const;

const setting = (key: string) => `portal.transferencias.${ID}.${key}`;

/** Cucuru (docs/transfers.md "Cucuru"): its line of the providers' table. */
export const cucuruProvider = {
  id: ID,
  label: 'Cucuru',
  settings: SETTINGS,
  webhookHeader: 'x-portal-webhook-token',
  notifications: { collection_received: 'credit', settlement_received: 'settlement' },

  build(values, environment) {
    for (const key of ['api_key', 'collector_id', 'webhook_token'] as const) {
      if (!values.get(key)?.trim()) {
        return { ok: false, problem: { setting: setting(key), reason: 'is not set' } };
      }
    }
    const base = values.get('base_url')?.trim() || DEFAULT_BASE_URL;
    const verdict = checkGatewayUrl(base, OFFICIAL_HOSTS, environment.allowedOrigins);
    if (!verdict.allowed) {
      return {
        ok: false,
        problem: {
          setting: setting('base_url'),
          reason: `${verdict.reason}; use https on api.cucuru.com or an origin listed in PORTAL_GATEWAY_ALLOWED_ORIGINS`,
        },
      };
    }
    return {
      ok: true,
      webhookToken: values.get('webhook_token')?.trim() ?? '',
      client: createCucuruClient({
        baseUrl: verdict.url,
        apiKey: values.get('api_key')?.trim() ?? '',
        collectorId: values.get('collector_id')?.trim() ?? '',
        timeoutMs: environment.timeoutMs,
      }),
    };
  },

  readHint(kind, body) {
    if (!isRecord(body)) return undefined;
    const creditId = stringField(body, 'collection_id');
    if (creditId === undefined || creditId.length > 100) return undefined;
    const dateText = stringField(body, 'date_time');
    const date = dateText === undefined ? null : new Date(dateText);
    return { kind, creditId, date: date && !Number.isNaN(date.getTime()) ? date : null };
  },
} as const satisfies TransferProviderDefinition<'cucuru'>;
