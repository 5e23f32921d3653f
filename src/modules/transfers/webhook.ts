import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { parsePositiveInt4 } from '../../platform/ids.js';
import { GatewayError } from '../../platform/providers/errors.js';
import type { RefusalBudget } from '../../platform/rate-limit.js';
import { safeEqual } from '../../platform/security/secrets.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import type { Clock } from '../../platform/clock.js';
import type { Credits, IntakeOutcome } from './credits.js';
import { transferProvider } from './providers/table.js';
import type { TransferRails } from './settings.js';

/*
 * A provider's notification (docs/transfers.md "A credit's way"): authenticated by the header
 * token the portal registered, then only a hint. The credit is read back from the provider and
 * taken in as the provider reports it (docs/decisions.md #47). A refusal answers 401 or 400,
 * changes nothing and counts against the payment webhook's refusal budget per address.
 */

export interface TransferNotification {
  proveedor: string;
  tenantId: string;
  aviso: string;
  headers: Readonly<Record<string, string | undefined>>;
  body: unknown;
}

export type NotificationOutcome = IntakeOutcome | 'not_found';

const UNAUTHORIZED = 'Token de notificación inválido';

export function createTransferWebhook(deps: {
  tenancy: Tenancy;
  rails: TransferRails;
  credits: Credits;
  refusals: RefusalBudget;
  clock: Clock;
  log: FastifyBaseLogger;
}) {
  async function authenticate(input: TransferNotification) {
    const tenantId = parsePositiveInt4(input.tenantId);
    const definition = transferProvider(input.proveedor);
    if (tenantId === undefined || !definition) throw new AppError('UNAUTHORIZED', UNAUTHORIZED);
    const db = await deps.tenancy.database(tenantId);
    const lookup = db && (await deps.rails.railOf({ tenantId, db }));
    const token = input.headers[definition.webhookHeader] ?? '';
    if (
      !db ||
      !lookup?.on ||
      lookup.rail.provider !== definition.id ||
      !safeEqual(token, lookup.rail.webhookToken)
    ) {
      throw new AppError('UNAUTHORIZED', UNAUTHORIZED);
    }
    const kind = definition.notifications[input.aviso];
    const hint = kind === undefined ? undefined : definition.readHint(kind, input.body);
    if (!hint) {
      throw new AppError(
        'INVALID_REQUEST',
        'La notificación no identifica una transferencia del proveedor',
      );
    }
    return { owner: { tenantId, db, rail: lookup.rail }, hint };
  }

  return async function receiveNotification(
    input: TransferNotification,
    origin: { ip: string },
  ): Promise<NotificationOutcome> {
    await deps.refusals.check(origin.ip);
    let authenticated;
    try {
      authenticated = await authenticate(input);
    } catch (error) {
      if (error instanceof AppError) await deps.refusals.refused(origin.ip);
      throw error;
    }
    const { owner, hint } = authenticated;
    let credit;
    try {
      credit = await owner.rail.client.credit(hint.creditId, hint.date ?? deps.clock.now());
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      // 5xx, so the provider delivers it again; the janitor reads the day's credits anyway.
      throw new AppError('SERVICE_UNAVAILABLE', 'El proveedor no respondió; reintente', {
        cause: error,
      });
    }
    if (!credit) {
      // The provider does not list it (yet, or ever): the janitor looks again for 48 hours.
      deps.log.warn({ tenantId: owner.tenantId }, 'transfer notification of an unlisted credit');
      return 'not_found';
    }
    return await deps.credits.intake(owner, credit);
  };
}

export type TransferWebhook = ReturnType<typeof createTransferWebhook>;
