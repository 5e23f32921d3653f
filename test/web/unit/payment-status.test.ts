import { describe, expect, it } from 'vitest';
import {
  keepPolling,
  outcomeOf,
  pollDelay,
  POLL_GIVE_UP_MS,
  showAdvice,
} from '../../../web/src/lib/payment-status.js';

describe('payment result', () => {
  it('says what each state means', () => {
    expect(outcomeOf({ estado: 'pending', recibo_numero: null })).toBe('processing');
    expect(outcomeOf({ estado: 'issued', recibo_numero: null })).toBe('processing');
    expect(outcomeOf({ estado: 'approved', recibo_numero: null })).toBe('approved-no-receipt');
    expect(outcomeOf({ estado: 'approved', recibo_numero: 'RC0001-00000042' })).toBe('approved');
    expect(outcomeOf({ estado: 'rejected', recibo_numero: null })).toBe('rejected');
    expect(outcomeOf({ estado: 'cancelled', recibo_numero: null })).toBe('cancelled');
    expect(outcomeOf({ estado: 'refunded', recibo_numero: 'RC1' })).toBe('refunded');
  });

  it('asks until the outcome is final, and gives up after a while', () => {
    expect(keepPolling('processing', 0)).toBe(true);
    expect(keepPolling('approved-no-receipt', 30_000)).toBe(true);
    expect(keepPolling('approved', 0)).toBe(false);
    expect(keepPolling('rejected', 0)).toBe(false);
    expect(keepPolling('processing', POLL_GIVE_UP_MS)).toBe(false);
  });

  it('asks often at first, then less', () => {
    expect(pollDelay(0)).toBe(2_000);
    expect(pollDelay(45_000)).toBe(5_000);
    expect(pollDelay(5 * 60_000)).toBe(15_000);
  });

  it('gives advice after a minute without an answer', () => {
    expect(showAdvice('processing', 59_000)).toBe(false);
    expect(showAdvice('processing', 60_000)).toBe(true);
    expect(showAdvice('approved', 120_000)).toBe(false);
  });
});
