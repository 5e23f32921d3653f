import { GatewayError } from '../../../../platform/providers/errors.js';
import {
  decimalAmount,
  isRecord,
  joinUrl,
  requestJson,
  stringField,
  type HttpMethod,
} from '../../../../platform/providers/http.js';
import type { ProviderCredit, TransferProviderClient } from '../definition.js';

/*
 * Cucuru's collection API as its public clients use it (no official reference is in reach; the
 * choices below are this folder's, and docs/transfers.md "Cucuru" lists them): paths under
 * `{base}/Collection/` with a capital C (one public client writes it in lower case; the
 * provider's own examples capitalise it), `X-Cucuru-Api-Key` and `X-Cucuru-Collector-Id` on every
 * call, `date_from`/`date_to` as `YYYY-MM-DD` days, and the collections list as
 * `{ collections: [...], next_page }` (a bare array is read too) with `EOF` after the last page.
 */

export interface CucuruSettings {
  baseUrl: string;
  apiKey: string;
  collectorId: string;
  timeoutMs: number;
}

/** A list is read no further than this many pages: a cursor that never ends must not loop. */
const MAX_PAGES = 200;
const DAY_MS = 86_400_000;

/** A day of the provider's (Argentina, UTC-3, which has no daylight saving time). */
function providerDay(instant: Date): string {
  return new Date(instant.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
}

function credentialHeaders(settings: CucuruSettings): Record<string, string> {
  return {
    'x-cucuru-api-key': settings.apiKey,
    'x-cucuru-collector-id': settings.collectorId,
  };
}

const STATUSES = new Set(['received', 'settlement', 'rejected']);

/** The first of `keys` that holds text. */
function firstText(record: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const key of keys) {
    const value = stringField(record, key);
    if (value !== undefined) return value;
  }
  return null;
}

/** One collection of the list, or undefined when it lacks what a credit must have. */
export function parseCollection(value: unknown): ProviderCredit | undefined {
  if (!isRecord(value)) return undefined;
  const creditId = stringField(value, 'collection_id');
  const amount = decimalAmount(value.amount);
  const status = stringField(value, 'status')?.toLowerCase();
  if (creditId === undefined || amount === undefined || !status || !STATUSES.has(status)) {
    return undefined;
  }
  // A credit of nothing pays nothing; one with more than numeric(15,2) holds is not money.
  if (Number(amount) <= 0 || amount.length > 16 || creditId.length > 100) return undefined;
  const dateText = stringField(value, 'date_time');
  const receivedAt = dateText === undefined ? null : new Date(dateText);
  return {
    creditId,
    traceId: firstText(value, ['collection_trace_id']),
    account: firstText(value, ['collection_account']),
    customerId: firstText(value, ['customer_id']),
    amount,
    currency: (stringField(value, 'currency_id') ?? 'ARS').toUpperCase(),
    receivedAt: receivedAt && !Number.isNaN(receivedAt.getTime()) ? receivedAt : null,
    status: status as ProviderCredit['status'],
    payer: {
      name: firstText(value, ['payer_name', 'origin_name', 'sender_name']),
      cuit: firstText(value, ['payer_cuit', 'origin_cuit', 'sender_tax_id']),
      bank: firstText(value, ['payer_bank', 'origin_bank', 'sender_bank']),
    },
  };
}

/**
 * Reads of one list shared by the notifications that wait for it. Cucuru has no read of one
 * collection: a notification is checked against the list of its days, and a burst of them would
 * read that list once each. A read answers every notification that arrived before it started;
 * one that arrives while a read is in flight waits for the next, which starts when that one ends
 * and answers all who waited. At most one read in flight and one waiting, per list.
 */
function createSharedReads() {
  const reads = new Map<string, { startedAt: number; list: Promise<ProviderCredit[]> }>();
  const waiting = new Map<string, Promise<ProviderCredit[]>>();

  function start(key: string, read: () => Promise<ProviderCredit[]>) {
    const entry = { startedAt: performance.now(), list: read() };
    reads.set(key, entry);
    // A finished read stays only until the next starts; a failed one is not kept.
    entry.list.catch(() => {
      if (reads.get(key) === entry) reads.delete(key);
    });
    return entry.list;
  }

  return {
    read(key: string, read: () => Promise<ProviderCredit[]>): Promise<ProviderCredit[]> {
      const arrivedAt = performance.now();
      const current = reads.get(key);
      if (!current) return start(key, read);
      if (current.startedAt >= arrivedAt) return current.list;
      let next = waiting.get(key);
      if (!next) {
        next = current.list
          .catch(() => undefined)
          .then(() => {
            waiting.delete(key);
            return start(key, read);
          });
        waiting.set(key, next);
      }
      return next;
    },
  };
}

export function createCucuruClient(settings: CucuruSettings): TransferProviderClient {
  const sharedReads = createSharedReads();
  async function call(method: HttpMethod, path: string, body?: unknown): Promise<unknown> {
    const answer = await requestJson({
      gateway: 'cucuru',
      method,
      url: joinUrl(settings.baseUrl, path),
      headers: credentialHeaders(settings),
      ...(body !== undefined && { body }),
      timeoutMs: settings.timeoutMs,
    });
    return answer.body;
  }

  async function credits(range: { from: Date; to: Date }): Promise<ProviderCredit[]> {
    const found: ProviderCredit[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const query = new URLSearchParams({
        date_from: providerDay(range.from),
        date_to: providerDay(range.to),
      });
      if (cursor !== undefined) query.set('next_page', cursor);
      const body = await call('GET', `/Collection/collections?${query.toString()}`);
      const items = Array.isArray(body)
        ? (body as unknown[])
        : isRecord(body) && Array.isArray(body.collections)
          ? (body.collections as unknown[])
          : undefined;
      if (items === undefined) {
        throw new GatewayError('cucuru GET /Collection/collections: no collections list', {
          body,
        });
      }
      for (const item of items) {
        const credit = parseCollection(item);
        if (credit) found.push(credit);
      }
      const next = isRecord(body) ? stringField(body, 'next_page') : undefined;
      if (next === undefined || next.toUpperCase() === 'EOF') return found;
      cursor = next;
    }
    throw new GatewayError(`cucuru GET /Collection/collections: more than ${MAX_PAGES} pages`);
  }

  return {
    async assignAccount(customerId) {
      const body = await call('PUT', '/Collection/accounts/account', {
        customer_id: customerId,
        read_only: 'true',
      });
      const cvu = isRecord(body) ? stringField(body, 'account_number') : undefined;
      if (cvu === undefined || !/^\d{22}$/.test(cvu)) {
        throw new GatewayError('cucuru PUT /Collection/accounts/account: no 22-digit account');
      }
      const alias = isRecord(body) ? (stringField(body, 'alias') ?? null) : null;
      return { cvu, alias };
    },

    credits,

    async credit(creditId, near) {
      // A day either side: the notification's time and the provider's day may straddle midnight.
      const range = {
        from: new Date(near.getTime() - DAY_MS),
        to: new Date(near.getTime() + DAY_MS),
      };
      const list = await sharedReads.read(
        `${providerDay(range.from)}:${providerDay(range.to)}`,
        () => credits(range),
      );
      return list.find((credit) => credit.creditId === creditId);
    },

    async registerWebhook(url, header) {
      await call('POST', '/Collection/webhooks/endpoint', { url, header });
    },
  };
}
