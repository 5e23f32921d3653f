import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from 'typebox';
import type {
  FastifyBaseLogger,
  FastifyReply,
  FastifyRequest,
  onResponseAsyncHookHandler,
  onSendAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import type { Kysely } from 'kysely';
import { principalOf } from '../auth/guard.js';
import type { Clock } from '../clock.js';
import type { SystemDatabase } from '../db/types.js';
import type { TenantExecutor } from '../db/executor.js';
import { AppError } from '../errors.js';
import {
  claimKey,
  findKey,
  finishKey,
  markPruneDue,
  releaseKey,
  type IdempotencyKeyId,
} from './queries.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * docs/api.md "Idempotency-Key": the route honours the header. `route` names it in the keys'
     * table; `headers` are the request headers that shape the answer besides the body (iniciar's
     * Origin), hashed with it; `keptRefusals` are the 4xx codes the route answers only after it
     * changed something (iniciar's GATEWAY_ERROR), kept and replayed like a success.
     */
    idempotency?: { route: string; headers?: readonly string[]; keptRefusals?: readonly string[] };
  }
}

/** How long a key is remembered: later, the same key is a new request (docs/api.md). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60_000;
/** The header's value: 1 to 255 printable ASCII characters (Stripe's limit). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
const POLL_MS = 50;

/** The optional header, for a route's `headers` schema (the OpenAPI document lists it). */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'Optional (docs/api.md "Idempotency-Key"): the same key, user and body within 24 hours ' +
        'replay the first answer (with `Idempotent-Replayed: true`) instead of running again; ' +
        'the same key with another body is 422 IDEMPOTENCY_KEY_REUSED; while the first is ' +
        'running, 409 IDEMPOTENCY_IN_PROGRESS.',
    }),
  ),
});

/** Keys sorted at every level: `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHashOf(request: FastifyRequest, headers: readonly string[]): string {
  const shaping: Record<string, string | null> = {};
  for (const name of headers) {
    const value = request.headers[name];
    shaping[name] = typeof value === 'string' ? value : null;
  }
  return createHash('sha256')
    .update(canonicalJson({ body: request.body ?? null, headers: shaping }))
    .digest('hex');
}

function codeOf(body: string): unknown {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && 'code' in parsed
      ? parsed.code
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An answer is stored and replayed when the operation changed something: a 2xx, or a 4xx whose
 * code the route keeps (iniciar's GATEWAY_ERROR left a cancelled payment and called the gateway,
 * docs/decisions.md #25). Any other 4xx changed nothing, so keeping it would only let made-up
 * keys fill the table, and would keep answering a refusal the client has since corrected. A 5xx
 * is never stored either: it is mostly a transaction that rolled back, and where a write did
 * commit (an iniciar whose checkout could not be recorded) the operation's own rules refuse a
 * second one (one payment in flight per debt), so the same key trying again is safe, while a
 * replayed 5xx would hold the key on a failure for 24 hours.
 */
function isKeptAnswer(status: number, body: string, keptRefusals: readonly string[]): boolean {
  if (status >= 200 && status < 300) return true;
  if (status < 400 || status >= 500) return false;
  const code = codeOf(body);
  return typeof code === 'string' && keptRefusals.includes(code);
}

interface Claim {
  db: TenantExecutor;
  id: IdempotencyKeyId;
  lockedAt: Date;
  keptRefusals: readonly string[];
}

/** The hooks a route whose config names `idempotency` gets, after its door's. */
export interface IdempotencyChecks {
  preHandler: preHandlerAsyncHookHandler;
  onSend: onSendAsyncHookHandler;
  onResponse: onResponseAsyncHookHandler;
}

/**
 * docs/api.md "Idempotency-Key" on the routes whose config names `idempotency`, as hooks that
 * run after the door's (the customer's token gives the tenant and user; the rate limit ran):
 * the preHandler claims the key in the tenant database or answers from it; onSend stores the
 * answer of an operation that changed something, or lets go of the claim (isKeptAnswer).
 */
export function createIdempotencyChecks(deps: {
  systemDb: Kysely<SystemDatabase>;
  clock: Clock;
  log: FastifyBaseLogger;
  /**
   * After this a claim still `in_progress` belongs to a request that died: longer than any
   * request runs (the gateway calls' timeouts), so a live one is never taken over.
   */
  lockTtlMs: number;
  /** How long a request waits for the one running its key before 409 IDEMPOTENCY_IN_PROGRESS. */
  waitMs?: number;
}): IdempotencyChecks {
  const { systemDb, clock, log, lockTtlMs } = deps;
  const waitMs = deps.waitMs ?? 5_000;
  const claims = new WeakMap<FastifyRequest, Claim>();

  async function release(claim: Claim): Promise<void> {
    try {
      await releaseKey(claim.db, claim.id, claim.lockedAt);
    } catch (error) {
      // The lock expires after lockTtlMs: the key is blocked that long, never for good.
      log.warn({ err: error }, 'idempotency key not released; its lock will expire');
    }
  }

  async function claimOrReplay(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> {
    const options = request.routeOptions.config.idempotency;
    const key = request.headers['idempotency-key'];
    if (!options || key === undefined) return;
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw new AppError(
        request.routeOptions.config.validationCode ?? 'VALIDATION_ERROR',
        'Idempotency-Key debe tener entre 1 y 255 caracteres ASCII imprimibles',
      );
    }
    const { tenant, portalUserId } = principalOf(request);
    const id: IdempotencyKeyId = { portalUserId, route: options.route, key };
    const requestHash = requestHashOf(request, options.headers ?? []);
    const deadline = performance.now() + waitMs;
    for (;;) {
      const now = clock.now();
      const claimed = await claimKey(tenant.db, id, {
        requestHash,
        now,
        expiredBefore: new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS),
        lockedBefore: new Date(now.getTime() - lockTtlMs),
      });
      if (claimed) {
        // Held from here: if marking fails, the 5xx it answers releases the key in onSend.
        claims.set(request, {
          db: tenant.db,
          id,
          lockedAt: now,
          keptRefusals: options.keptRefusals ?? [],
        });
        // After the claim: a process dying in between leaves a key the next visit of this
        // tenant prunes anyway (it deletes every key older than 24 hours).
        await markPruneDue(
          systemDb,
          tenant.tenantId,
          new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS),
        );
        return;
      }
      const stored = await findKey(tenant.db, id);
      // Released (an answer not kept) between the two statements: claim it again.
      if (stored === undefined) continue;
      if (stored.requestHash !== requestHash) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'Esta Idempotency-Key ya se usó con otra solicitud; use una clave nueva',
        );
      }
      if (
        stored.status === 'done' &&
        stored.responseStatus !== null &&
        stored.responseBody !== null
      ) {
        return reply
          .code(stored.responseStatus)
          .header('content-type', 'application/json; charset=utf-8')
          .header('idempotent-replayed', 'true')
          .send(stored.responseBody);
      }
      if (performance.now() >= deadline) {
        throw new AppError(
          'IDEMPOTENCY_IN_PROGRESS',
          'Una solicitud con esta Idempotency-Key está en curso; reintente en unos segundos',
          { headers: { 'retry-after': '1' } },
        );
      }
      await sleep(POLL_MS);
    }
  }

  async function keepOrRelease(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ): Promise<unknown> {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    const status = reply.statusCode;
    // Released, the key is free at once: a request waiting on it claims it and runs, and so does
    // a corrected retry with the same key, whatever its body.
    if (typeof payload !== 'string' || !isKeptAnswer(status, payload, claim.keptRefusals)) {
      await release(claim);
      return payload;
    }
    try {
      const kept = await finishKey(claim.db, claim.id, claim.lockedAt, { status, body: payload });
      if (!kept)
        log.warn({ route: claim.id.route }, 'idempotency key taken over before its answer');
    } catch (error) {
      // The answer still goes out; the claim's lock expires after lockTtlMs and a retry then
      // runs the operation again (what iniciar's and coupons' own checks guard against).
      log.error({ err: error }, 'idempotency answer not stored');
    }
    return payload;
  }

  // A request that ended without onSend (the connection gone before an answer): let go at once.
  async function releaseUnanswered(request: FastifyRequest): Promise<void> {
    const claim = claims.get(request);
    if (!claim) return;
    claims.delete(request);
    await release(claim);
  }

  return { preHandler: claimOrReplay, onSend: keepOrRelease, onResponse: releaseUnanswered };
}
