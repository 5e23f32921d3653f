import { Type, type TSchema } from 'typebox';
import { statusOf, type ErrorCode } from './error-codes.js';

/** PostgreSQL `integer`: tenant, sucursal and payment ids never go beyond it. */
export const MAX_INT4 = 2_147_483_647;

/** The largest numeric(15,2) value, in cents: every amount the ledger and the reports take. */
export const MAX_NUMERIC_CENTS = 999_999_999_999_999;

/** `{ success: true, data }`. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

/** Optional tenant/sucursal ids of public routes; the X-Tenant-Id/X-Sucursal-Id headers may carry them instead. */
export const TenantIdsBody = {
  tenant_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT4 })),
  sucursal_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT4 })),
};

/**
 * Error answers of a route, for the OpenAPI document: per status, the envelope whose `code` is
 * one of the route's codes of that status.
 */
export function errorResponses(
  codes: readonly ErrorCode[],
  /** The codes this route answers with another status than their own (routes.ts `statuses`). */
  statuses: Partial<Record<ErrorCode, number>> = {},
): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = statuses[code] ?? statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, ofStatus]) => [
      status,
      Type.Object(
        {
          success: Type.Literal(false),
          error: Type.String(),
          // An enum, not a union of literals: the response serializer writes it as a string.
          code: Type.Unsafe<ErrorCode>({ type: 'string', enum: ofStatus }),
        },
        { description: 'Error envelope' },
      ),
    ]),
  );
}

/** A PDF body, for the OpenAPI document (Fastify sends Buffers as they are). */
export const PdfResponse = {
  description: 'The PDF document',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

/**
 * A response field that is a string or null, as one JSON-schema type list instead of `anyOf`:
 * the response serializer then writes it without running a validator per value to pick a
 * branch (measurable on the debts list, 20 of them per response). Responses only.
 */
export function NullableString(options: { format?: string; description?: string } = {}) {
  return Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
}
