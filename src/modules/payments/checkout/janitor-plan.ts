/**
 * When the janitor asks a gateway about an issued payment nobody notified us of (docs/payments.md
 * "How a payment leaves issued"): about 2, 10 and 30 minutes after it was made, each stage only
 * before the checkout's TTL (past it, the expiry job decides). An ask counts for a stage when it
 * happened at or after the stage's time, whoever made it (the customer looking, or the janitor).
 */
export const JANITOR_STAGES_MS = [2 * 60_000, 10 * 60_000, 30 * 60_000] as const;

export interface JanitorPlan {
  /** A stage has come and no ask has been made since it did. */
  due: boolean;
  /** When the next stage comes, if one is left before the TTL. */
  next: Date | undefined;
}

export function janitorPlan(
  payment: { status: string; created_at: Date; gateway_checked_at: Date | null },
  now: Date,
  ttlMs: number,
): JanitorPlan {
  if (payment.status !== 'issued') return { due: false, next: undefined };
  const created = payment.created_at.getTime();
  const stages = JANITOR_STAGES_MS.filter((stage) => stage < ttlMs).map((stage) => created + stage);
  const reached = stages.filter((at) => at <= now.getTime());
  const lastReached = reached.at(-1);
  const checked = payment.gateway_checked_at?.getTime();
  const due = lastReached !== undefined && (checked === undefined || checked < lastReached);
  const upcoming = stages.find((at) => at > now.getTime());
  return { due, next: upcoming === undefined ? undefined : new Date(upcoming) };
}

/** The first stage of a payment made at `createdAt`, or its TTL when that comes first. */
export function firstLookAt(createdAt: Date, ttlMs: number): Date {
  return new Date(createdAt.getTime() + Math.min(JANITOR_STAGES_MS[0], ttlMs));
}
