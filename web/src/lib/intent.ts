/**
 * One Idempotency-Key per intent (docs/api.md "Idempotency-Key"): the same request sent again
 * after an answer that never came (network, 5xx, 429, IDEMPOTENCY_IN_PROGRESS: nothing the API
 * kept) carries the same key, so the API pays or generates once; a changed request, or any
 * request after an answer the API kept (success, or a refusal it would replay), gets a new one.
 * Pure, tested in test/web/unit/intent.test.ts.
 */
import type { KnownCode } from '../api/errors.js';

/** What the caller knows of a failed call: its HTTP status (0: no answer) and code. */
export interface Failure {
  status: number;
  code: KnownCode;
}

/** Whether the API kept no answer for the key, so the same request may go again with it. */
export function keyOutlives(failure: Failure): boolean {
  return (
    failure.status === 0 ||
    failure.status >= 500 ||
    failure.status === 429 ||
    failure.code === 'IDEMPOTENCY_IN_PROGRESS'
  );
}

/** A random UUID; crypto.randomUUID needs a secure context, getRandomValues does not. */
export function randomKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface Intent {
  /** The key for sending `body` now. */
  keyFor(body: unknown): string;
  /** The call ended: with no failure (null) or one the API kept, the next request is new. */
  settled(failure: Failure | null): void;
}

export function createIntent(newKey: () => string = randomKey): Intent {
  let current: { body: string; key: string } | null = null;
  return {
    keyFor(body) {
      const text = JSON.stringify(body);
      if (current?.body !== text) current = { body: text, key: newKey() };
      return current.key;
    },
    settled(failure) {
      if (failure === null || !keyOutlives(failure)) current = null;
    },
  };
}
