import { GatewayError } from './types.js';

/**
 * What `portal_payments.gateway_response` keeps of a failed gateway call (docs/decisions.md #25). The
 * tenant reads that column, so it holds the error message, the HTTP status and the body cut to a
 * bounded size: never the error's cause (a network error can carry the request, headers and all),
 * and never an answer large enough to carry whatever a misbehaving server chose to send.
 */

/**
 * A failed gateway call (docs/decisions.md #25): the message, the HTTP status and a bounded body
 * only, as `gatewayFailureRecord` cuts them. queries/json-columns.ts stores it in gateway_response.
 */
export interface GatewayFailureRecord {
  error: string;
  status?: number;
  body?: unknown;
}

/** Characters of the body's JSON text kept; a longer body is stored as that text, cut. */
export const MAX_STORED_BODY_CHARS = 2_000;
const MAX_STORED_MESSAGE_CHARS = 500;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function gatewayFailureRecord(error: unknown): GatewayFailureRecord {
  const message = error instanceof Error ? error.message : String(error);
  const record: GatewayFailureRecord = { error: cut(message, MAX_STORED_MESSAGE_CHARS) };
  if (!(error instanceof GatewayError)) return record;
  const { status, body } = error.details;
  if (status !== undefined) record.status = status;
  if (body !== undefined) record.body = boundedBody(body);
  return record;
}

function boundedBody(body: unknown): unknown {
  if (typeof body === 'string') return cut(body, MAX_STORED_BODY_CHARS);
  const text = JSON.stringify(body);
  return text.length <= MAX_STORED_BODY_CHARS ? body : cut(text, MAX_STORED_BODY_CHARS);
}

/**
 * At most `max` characters plus an ellipsis, never ending in half a surrogate pair: PostgreSQL
 * refuses a lone surrogate in jsonb, and the row would then not be cancelled at all.
 */
function cut(text: string, max: number): string {
  const wellFormed = text.replace(LONE_SURROGATE, '\uFFFD');
  if (wellFormed.length <= max) return wellFormed;
  const end = isHighSurrogate(wellFormed.charCodeAt(max - 1)) ? max - 1 : max;
  return `${wellFormed.slice(0, end)}...`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
