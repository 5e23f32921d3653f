import { describe, expect, it } from 'vitest';
import { createIntent, keyOutlives, randomKey } from '../../../web/src/lib/intent.js';

function counter() {
  let n = 0;
  return () => `key-${++n}`;
}

describe('Idempotency-Key per intent', () => {
  it('sends the same key again for the same request after no answer, a new one for another request', () => {
    const intent = createIntent(counter());
    const body = { facturas: [{ id: 'a', monto: 10 }], total: 10 };
    expect(intent.keyFor(body)).toBe('key-1');
    intent.settled({ status: 0, code: 'NETWORK_ERROR' });
    expect(intent.keyFor({ ...body })).toBe('key-1');
    intent.settled({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(intent.keyFor(body)).toBe('key-1');
    // The customer changes the choice: a new intent.
    expect(intent.keyFor({ facturas: [{ id: 'b', monto: 5 }], total: 5 })).toBe('key-2');
    expect(intent.keyFor(body)).toBe('key-3');
  });

  it('starts a new intent after an answer the API keeps for the key', () => {
    const intent = createIntent(counter());
    const body = { total: 1 };
    expect(intent.keyFor(body)).toBe('key-1');
    intent.settled(null);
    expect(intent.keyFor(body)).toBe('key-2');
    // A refusal is replayed for its key (GATEWAY_ERROR included): trying again takes a new one.
    intent.settled({ status: 422, code: 'GATEWAY_ERROR' });
    expect(intent.keyFor(body)).toBe('key-3');
  });

  it('keeps the key for what the API does not keep: no answer, 5xx, 429, a request still running', () => {
    expect(keyOutlives({ status: 0, code: 'NETWORK_ERROR' })).toBe(true);
    expect(keyOutlives({ status: 500, code: 'INTERNAL_ERROR' })).toBe(true);
    expect(keyOutlives({ status: 429, code: 'RATE_LIMITED' })).toBe(true);
    expect(keyOutlives({ status: 409, code: 'IDEMPOTENCY_IN_PROGRESS' })).toBe(true);
    expect(keyOutlives({ status: 409, code: 'PAYMENT_IN_PROGRESS' })).toBe(false);
    expect(keyOutlives({ status: 400, code: 'INVALID_FACTURAS' })).toBe(false);
  });

  it('makes UUIDs', () => {
    const key = randomKey();
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(randomKey()).not.toBe(key);
  });
});
