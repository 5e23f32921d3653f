import type { Kysely } from 'kysely';
import { growingLru } from '../lru.js';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import type { SystemDatabase } from '../db/types.js';

/*
 * Whether a pay link still lets its tokens in (docs/pay-links.md): not revoked, not expired. The
 * payer door asks on every request a link's token makes, so answers are kept a few seconds per
 * instance; revoking one forgets it here at once (another instance within those seconds), and the
 * account's session version, which the guard also checks, ends its tokens at once everywhere
 * when the revocation comes with a session end (a password, staff).
 */
export interface PayLinkStatus {
  live(linkId: number): Promise<boolean>;
  /** Forget what is known of these links (they were just revoked). */
  forget(linkIds: readonly number[]): void;
}

const CACHE_MS = 3_000;

export function createPayLinkStatus(deps: {
  systemDb: Kysely<SystemDatabase>;
  clock: TimerClock;
}): PayLinkStatus {
  const { systemDb, clock } = deps;
  const known = growingLru<number, { live: boolean }>(50_000, {
    ttl: CACHE_MS,
    ...cacheAgesOn(clock),
  });
  return {
    async live(linkId) {
      const cached = known.get(linkId);
      if (cached) return cached.live;
      const row = await systemDb
        .selectFrom('portal_pay_links')
        .select(['revoked_at', 'expires_at'])
        .where('id', '=', linkId)
        .executeTakeFirst();
      const live = row !== undefined && row.revoked_at === null && row.expires_at > clock.now();
      known.set(linkId, { live });
      return live;
    },
    forget(linkIds) {
      for (const id of linkIds) known.delete(id);
    },
  };
}

/** Every live link of an account revoked (its password changed, staff ended it); their ids. */
export async function revokeAccountPayLinks(
  systemDb: Kysely<SystemDatabase>,
  account: { tenantId: number; portalUserId: string },
  now: Date,
): Promise<number[]> {
  const rows = await systemDb
    .updateTable('portal_pay_links')
    .set({ revoked_at: now })
    .where('tenant_id', '=', account.tenantId)
    .where('portal_user_id', '=', account.portalUserId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => Number(row.id));
}
