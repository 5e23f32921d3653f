import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { forEachAtOnce } from '../../platform/at-once.js';
import type { Clock } from '../../platform/clock.js';
import type { SystemDatabase, TenantDatabase } from '../../platform/db/types.js';
import type { JobQueue } from '../../platform/jobs.js';
import type { Metrics } from '../../platform/metrics.js';
import { GatewayError } from '../../platform/providers/errors.js';
import { sha256Hex } from '../../platform/security/secrets.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import type { Credits, RailTenant } from './credits.js';
import {
  findKnownCredits,
  findPendingCreditIds,
  findRegisteredWebhook,
  findUnsentEmails,
  recordRegisteredWebhook,
} from './queries.js';
import type { TransferRails } from './settings.js';

/*
 * The transfers' janitor (docs/transfers.md "The janitor"), every few minutes over the tenants
 * marked as having the rail on (system/0011: marked when a customer's CVU is first asked for, as
 * no credit can arrive before an account exists): it registers the webhook address when it is new
 * or changed, reads the last 48 hours of credits so a lost webhook costs minutes, applies what
 * stayed pending, and queues the e-mails a stopped process left unsent. A tenant found off is
 * unmarked.
 */

export const TRANSFERS_JANITOR_JOB = 'transfers.janitor';
/** Every five minutes (UTC cron): a lost webhook's credit shows up within that. */
const JANITOR_CRON = '*/5 * * * *';
const LOOK_BACK_MS = 48 * 3_600_000;
/** Tenants read at once: the tenant pools' connection budget is shared with requests. */
const TENANT_CONCURRENCY = 4;
/** An e-mail whose job had a minute to run and left no mark. */
const EMAIL_GRACE_MS = 60_000;
/** How long this process trusts its own mark of a tenant before writing it again. */
const MARK_TRUSTED_MS = 10 * 60_000;

export interface JanitorRun {
  tenants: number;
  on: number;
  found: number;
  applied: number;
  failed: number;
}

export function createTransfersJanitor(deps: {
  systemDb: Kysely<SystemDatabase>;
  tenancy: Tenancy;
  rails: TransferRails;
  credits: Credits;
  queueEmail(tenantId: number, creditId: number, sucursalId: number): Promise<void>;
  /** Where providers post (`{BACKEND_URL}{prefix}/portal/transferencias/{id}/{tenant}`). */
  webhookUrl: ((provider: string, tenantId: number) => string) | undefined;
  clock: Clock;
  log: FastifyBaseLogger;
}) {
  const { tenancy, rails, credits, clock, log } = deps;
  const markedAt = new Map<number, number>();

  async function registerWebhook(owner: RailTenant): Promise<void> {
    const { tenantId, db, rail } = owner;
    if (!deps.webhookUrl) return;
    const url = deps.webhookUrl(rail.provider, tenantId);
    const tokenSha256 = sha256Hex(rail.webhookToken);
    const registered = await findRegisteredWebhook(db, tenantId, rail.provider);
    if (registered?.url === url && registered.token_sha256 === tokenSha256) return;
    await rail.client.registerWebhook(url, { name: rail.webhookHeader, value: rail.webhookToken });
    await recordRegisteredWebhook(db, {
      tenantId,
      provider: rail.provider,
      url,
      tokenSha256,
      at: clock.now(),
    });
    log.info({ tenantId }, 'transfer webhook registered with the provider');
  }

  /**
   * A customer asked for a CVU: the tenant's rail is in use. Marks the tenant for the rounds and
   * registers the webhook now, so the first transfer is notified (a failure waits for the round).
   */
  async function railInUse(owner: RailTenant): Promise<void> {
    const at = markedAt.get(owner.tenantId);
    if (at !== undefined && performance.now() - at < MARK_TRUSTED_MS) return;
    await deps.systemDb
      .insertInto('portal_transfer_tenants')
      .values({ tenant_id: owner.tenantId })
      .onConflict((conflict) => conflict.column('tenant_id').doNothing())
      .execute();
    if (markedAt.size > 10_000) markedAt.clear();
    markedAt.set(owner.tenantId, performance.now());
    await registerWebhook(owner);
  }

  /** One tenant's round; answers the credits it found and applied. */
  async function sweepTenant(owner: RailTenant): Promise<{ found: number; applied: number }> {
    const { tenantId, db, rail } = owner;
    await registerWebhook(owner);
    const now = clock.now();
    const listed = await rail.client.credits({
      from: new Date(now.getTime() - LOOK_BACK_MS),
      to: now,
    });
    const known = await findKnownCredits(
      db,
      tenantId,
      rail.provider,
      listed.map((credit) => credit.creditId),
    );
    let applied = 0;
    for (const credit of listed) {
      const held = known.get(credit.creditId);
      // Only what is new or changed costs a write; the rest is as recorded.
      const unchanged =
        held !== undefined &&
        held.provider_status === credit.status &&
        (credit.status !== 'settlement' || held.liquidada_at !== null);
      if (unchanged) continue;
      if ((await credits.intake(owner, credit)) === 'applied') applied += 1;
    }
    for (const id of await findPendingCreditIds(db, tenantId)) {
      if ((await credits.apply(owner, id)) === 'applied') applied += 1;
    }
    for (const unsent of await findUnsentEmails(
      db,
      tenantId,
      new Date(now.getTime() - EMAIL_GRACE_MS),
    )) {
      if (unsent.sucursal_id !== null)
        await deps.queueEmail(tenantId, unsent.id, unsent.sucursal_id);
    }
    return { found: listed.length, applied };
  }

  /** The round over the marked active tenants (or the given ones). */
  async function run(tenantIds?: readonly number[]): Promise<JanitorRun> {
    const ids =
      tenantIds ??
      (
        await deps.systemDb
          .selectFrom('portal_transfer_tenants as m')
          .innerJoin('tenants as t', 't.id', 'm.tenant_id')
          .select('m.tenant_id')
          .where('t.activo', '=', true)
          .orderBy('m.tenant_id')
          .execute()
      ).map((row) => row.tenant_id);
    const result: JanitorRun = { tenants: ids.length, on: 0, found: 0, applied: 0, failed: 0 };
    await forEachAtOnce(ids, TENANT_CONCURRENCY, async (tenantId) => {
      try {
        const db: Kysely<TenantDatabase> | undefined = await tenancy.database(tenantId);
        const lookup = db && (await rails.railOf({ tenantId, db }));
        if (!db || !lookup?.on) {
          // Turned off (or gone): no more rounds until a customer asks for a CVU again.
          await deps.systemDb
            .deleteFrom('portal_transfer_tenants')
            .where('tenant_id', '=', tenantId)
            .execute();
          markedAt.delete(tenantId);
          return;
        }
        result.on += 1;
        const swept = await sweepTenant({ tenantId, db, rail: lookup.rail });
        result.found += swept.found;
        result.applied += swept.applied;
      } catch (error) {
        result.failed += 1;
        // The provider's failures are expected now and then; the next round tries again.
        log.warn(
          { tenantId, err: error instanceof GatewayError ? error.message : error },
          'transfers janitor: tenant not swept',
        );
      }
    });
    return result;
  }

  return { run, sweepTenant, registerWebhook, railInUse };
}

export type TransfersJanitor = ReturnType<typeof createTransfersJanitor>;

export async function scheduleTransfersJanitor(
  jobs: JobQueue,
  janitor: TransfersJanitor,
  metrics: Pick<Metrics, 'jobRun'>,
  log: FastifyBaseLogger,
): Promise<void> {
  await jobs.schedule(TRANSFERS_JANITOR_JOB, JANITOR_CRON);
  await jobs.work(TRANSFERS_JANITOR_JOB, async () => {
    const started = performance.now();
    const result = await janitor.run();
    metrics.jobRun('transfers-janitor', result.failed > 0 ? 'partial' : 'done');
    log.info({ ...result, ms: Math.round(performance.now() - started) }, 'transfers janitor');
  });
}
