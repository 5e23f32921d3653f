import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { SystemDatabase } from '../db/types.js';
import type { JobQueue } from '../jobs.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import { IDEMPOTENCY_KEY_TTL_MS } from './http.js';
import {
  findOldestKey,
  findPruneDueTenants,
  pruneKeys,
  settlePruneDue,
  type PruneDueTenant,
} from './queries.js';

export const IDEMPOTENCY_PRUNE_JOB = 'idempotency.prune';
/** Hourly: a key older than 24 hours already counts as new, so pruning is housekeeping only. */
const IDEMPOTENCY_PRUNE_CRON = '23 * * * *';
/** Keys deleted per statement; a tenant's run stops after MAX_BATCHES and resumes next hour. */
const BATCH = 1_000;
const MAX_BATCHES = 20;
/** Tenants visited at once, as the checkout expiry: a few tenant connections, never all. */
const TENANT_CONCURRENCY = 4;

/**
 * Deletes idempotency keys older than 24 hours (docs/api.md "Idempotency-Key"), visiting only the
 * tenants portal_idempotency_due marks as due: a tenant without keys costs nothing, not even a
 * connection (the same bound as the checkout expiry's portal_expiry_due).
 */
export function createIdempotencyPrune(deps: {
  systemDb: Kysely<SystemDatabase>;
  tenancy: Tenancy;
  clock: Clock;
  log: FastifyBaseLogger;
}) {
  const { systemDb, tenancy, clock, log } = deps;

  async function visit(due: PruneDueTenant): Promise<number> {
    try {
      const db = await tenancy.database(due.tenantId);
      if (!db) {
        await settlePruneDue(systemDb, due, undefined);
        return 0;
      }
      const before = new Date(clock.now().getTime() - IDEMPOTENCY_KEY_TTL_MS);
      let deleted = 0;
      for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
        const count = await pruneKeys(db, before, BATCH);
        deleted += count;
        if (count < BATCH) break;
      }
      const oldest = await findOldestKey(db);
      await settlePruneDue(
        systemDb,
        due,
        oldest ? new Date(oldest.getTime() + IDEMPOTENCY_KEY_TTL_MS) : undefined,
      );
      return deleted;
    } catch (error) {
      // Its mark stays due: the next run tries this tenant again.
      log.error({ err: error, tenantId: due.tenantId }, 'idempotency keys not pruned');
      return 0;
    }
  }

  return {
    /** One pass over the tenants with keys due; answers how many keys it deleted. */
    async sweep(): Promise<number> {
      const due = await findPruneDueTenants(systemDb, clock.now());
      let next = 0;
      let deleted = 0;
      await Promise.all(
        Array.from({ length: Math.min(TENANT_CONCURRENCY, due.length) }, async () => {
          for (let tenant = due[next++]; tenant; tenant = due[next++]) {
            deleted += await visit(tenant);
          }
        }),
      );
      if (deleted > 0) log.info({ deleted }, 'idempotency keys pruned');
      return deleted;
    },
  };
}

export type IdempotencyPrune = ReturnType<typeof createIdempotencyPrune>;

export async function scheduleIdempotencyPrune(
  jobs: JobQueue,
  prune: IdempotencyPrune,
): Promise<void> {
  await jobs.schedule(IDEMPOTENCY_PRUNE_JOB, IDEMPOTENCY_PRUNE_CRON);
  await jobs.work(IDEMPOTENCY_PRUNE_JOB, async () => {
    await prune.sweep();
  });
}
