import { hmacHex, safeEqual } from '../../../platform/security/secrets.js';
import { createHmac } from 'node:crypto';
import type { GatewayNotifications } from './definition.js';
import { isRecord } from '../../../platform/providers/http.js';
import type { NotificationInput } from './types.js';

/*
 * Mercado Pago's webhook scheme, which the sandbox gateway copies (so it sits here, shared, as
 * http.ts does, and neither folder reaches into the other): the notification's shape, and its
 * signature.
 */

const QUERY_TRACES = ['data.id', 'type', 'topic', 'id'];
const BODY_TRACES = ['type', 'action', 'data'];

/**
 * A notification of this scheme (`type`/`data.id`, signed with `x-signature`; the legacy IPN's
 * `topic`/`id`): any trace of the shape makes one, so whatever looks signed is judged by an
 * adapter that checks the signature.
 */
export function hasSignedWebhookShape(input: NotificationInput): boolean {
  const body = isRecord(input.body) ? input.body : {};
  return (
    input.headers['x-signature'] !== undefined ||
    QUERY_TRACES.some((name) => input.query[name] !== undefined) ||
    BODY_TRACES.some((name) => body[name] !== undefined)
  );
}

/** How the gateways of this scheme recognise their notifications (definition.ts). */
export const SIGNED_WEBHOOK_NOTIFICATIONS: GatewayNotifications = {
  recognises: hasSignedWebhookShape,
  signed: true,
};

/**
 * The signature: header `x-signature: ts=<ms>,v1=<hex>`, HMAC-SHA256 over the manifest
 * `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`, a part left out when its value is missing.
 */
export function signatureManifest(parts: {
  dataId?: string | undefined;
  requestId?: string | undefined;
  ts?: string | undefined;
}): string {
  let manifest = '';
  if (parts.dataId) manifest += `id:${parts.dataId};`;
  if (parts.requestId) manifest += `request-id:${parts.requestId};`;
  if (parts.ts) manifest += `ts:${parts.ts};`;
  return manifest;
}

export function signNotification(
  secret: string,
  parts: { dataId: string; requestId: string; ts: string },
): string {
  const v1 = createHmac('sha256', secret).update(signatureManifest(parts)).digest('hex');
  return `ts=${parts.ts},v1=${v1}`;
}

/** Parses `ts=...,v1=...`; undefined when malformed. */
export function parseSignatureHeader(
  header: string | undefined,
): { ts: string; v1: string } | undefined {
  if (!header) return undefined;
  const fields = new Map<string, string>();
  for (const part of header.split(',')) {
    const [name, value] = part.split('=', 2).map((piece) => piece.trim());
    if (name && value) fields.set(name, value);
  }
  const ts = fields.get('ts');
  const v1 = fields.get('v1');
  return ts && v1 && /^[0-9a-f]{64}$/i.test(v1) ? { ts, v1: v1.toLowerCase() } : undefined;
}

/** Constant-time check; data.id is accepted as sent and lowercased (the SDKs and docs disagree). */
export function verifyNotificationSignature(
  secret: string,
  header: string | undefined,
  parts: { dataId: string | undefined; requestId: string | undefined },
): boolean {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return false;
  const candidates = new Set([parts.dataId, parts.dataId?.toLowerCase()]);
  let valid = false;
  for (const dataId of candidates) {
    const expected = hmacHex(
      Buffer.from(secret),
      signatureManifest({ dataId, requestId: parts.requestId, ts: parsed.ts }),
    );
    // Every candidate is compared, so timing does not tell which one matched.
    if (safeEqual(expected, parsed.v1)) valid = true;
  }
  return valid;
}
