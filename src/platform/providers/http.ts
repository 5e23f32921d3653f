import { Decimal } from 'decimal.js';
import { request } from 'undici';
import { GatewayError } from './errors.js';

/**
 * The one way adapters talk to a gateway: JSON in, JSON out, a deadline on every call. Anything
 * but a 2xx answer with a JSON (or empty) body is a GatewayError carrying the status and the
 * parsed body. Error messages name the gateway, method and path only: never headers (tokens),
 * request bodies (client secrets) or query strings.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT';

export interface JsonCall {
  /** Names the gateway in error messages, for example the gateway's or provider's id. */
  gateway: string;
  method: HttpMethod;
  url: string;
  headers?: Readonly<Record<string, string>>;
  /** Serialized as JSON when present. */
  body?: unknown;
  timeoutMs: number;
}

export interface JsonAnswer {
  status: number;
  /** Parsed JSON; null for an empty body. */
  body: unknown;
}

/** Long non-JSON bodies (HTML error pages) are cut to this many characters in GatewayError. */
const MAX_TEXT_IN_ERROR = 2_000;

/**
 * A gateway's JSON answers are a few KB; a body past this is read no further (a broken or hostile
 * upstream must not make the API buffer without end).
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, label: string) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw new GatewayError(`${label}: answer larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export async function requestJson(call: JsonCall): Promise<JsonAnswer> {
  const url = new URL(call.url);
  const label = `${call.gateway} ${call.method} ${pathPattern(url.pathname)}`;
  const signal = AbortSignal.timeout(call.timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  let payload: string | undefined;
  if (call.body !== undefined) {
    payload = JSON.stringify(call.body);
    headers['content-type'] = 'application/json';
  }

  let status: number;
  let text: string;
  try {
    const answer = await request(url, {
      method: call.method,
      headers,
      body: payload,
      signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
    status = answer.statusCode;
    text = await readCapped(answer.body, label);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    const timedOut = signal.aborted || TIMEOUT_CODES.has(errorCode(error));
    throw new GatewayError(
      timedOut
        ? `${label}: no answer within ${call.timeoutMs} ms`
        : `${label}: request failed (${errorCode(error) || 'network error'})`,
      { cause: error },
    );
  }

  let body: unknown = null;
  let parsed = true;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      parsed = false;
      body = text.length > MAX_TEXT_IN_ERROR ? `${text.slice(0, MAX_TEXT_IN_ERROR)}...` : text;
    }
  }
  if (status < 200 || status > 299) {
    throw new GatewayError(`${label}: answered ${status}`, { status, body });
  }
  if (!parsed) {
    throw new GatewayError(`${label}: answered ${status} with a body that is not JSON`, {
      status,
      body,
    });
  }
  return { status, body };
}

/**
 * The path with its ids (payment and order ids, preference ids, uuids) as `:id`: error messages
 * reach the logs, which carry no identifiers.
 */
export function pathPattern(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => (/\d{4,}|^[0-9a-f-]{20,}$/i.test(segment) ? ':id' : segment))
    .join('/');
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    if (typeof error.code === 'string') return error.code;
  }
  return '';
}

/** Narrowing helpers for gateway answers (they are `unknown` until checked). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** "https://host/base/" + "/path" without doubling or losing the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/**
 * A gateway's amount (JSON number or numeric string) as a 2-decimal string, or undefined when it
 * is not a non-negative number. Numbers are read through their shortest decimal form (1250.5 is
 * "1250.5", 0.1 + 0.2 is "0.30000000000000004"), then rounded half-up to cents in decimal, so no
 * binary floating-point artifact reaches the result.
 */
export function decimalAmount(value: unknown): string | undefined {
  let text: string;
  if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else if (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)) text = value.trim();
  else return undefined;
  const amount = new Decimal(text);
  if (amount.isNegative()) return undefined;
  return amount.toFixed(2, Decimal.ROUND_HALF_UP);
}
