import type { GatewayNotifications } from '../definition.js';
import { isRecord } from '../../../../platform/providers/http.js';
import type { NotificationInput } from '../types.js';

/**
 * Ualá Bis's notifications: a body naming the order's `uuid`, unsigned (the notification URL's
 * token authenticates them, and the order is always fetched again before anything moves).
 */
export function hasUalaBisShape(input: NotificationInput): boolean {
  return isRecord(input.body) && typeof input.body.uuid === 'string';
}

export const UALA_BIS_NOTIFICATIONS: GatewayNotifications = {
  recognises: hasUalaBisShape,
  signed: false,
};
