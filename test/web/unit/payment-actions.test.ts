import { describe, expect, it } from 'vitest';
import {
  actionErrorMessage,
  actionRoute,
  canCancel,
  canRefund,
  checkoutHref,
  continueHref,
  hasReceipt,
  inProgressMessage,
  paymentStateLabel,
  receiptPending,
  reloadAfter,
} from '../../../web/src/lib/payment-actions.js';
import { routes } from '../../../contract/routes.js';

const STATES = ['pending', 'issued', 'approved', 'rejected', 'refunded', 'cancelled'];

describe('payment actions', () => {
  it('cancels pending and issued payments only (docs/decisions.md #24)', () => {
    expect(STATES.filter(canCancel)).toEqual(['pending', 'issued']);
  });

  it('refunds approved payments only (docs/api.md devolver)', () => {
    expect(STATES.filter(canRefund)).toEqual(['approved']);
  });

  it('offers the receipt of an approved payment once its number exists', () => {
    expect(hasReceipt({ estado: 'approved', recibo_numero: 'RC0001-00000042' })).toBe(true);
    expect(hasReceipt({ estado: 'approved', recibo_numero: null })).toBe(false);
    expect(receiptPending({ estado: 'approved', recibo_numero: null })).toBe(true);
    // A refunded payment keeps its number, but the API answers its receipt 422.
    expect(hasReceipt({ estado: 'refunded', recibo_numero: 'RC0001-00000042' })).toBe(false);
    expect(receiptPending({ estado: 'refunded', recibo_numero: null })).toBe(false);
  });

  it('names every state in Spanish, and an unknown one as it comes', () => {
    expect(STATES.map(paymentStateLabel)).toEqual([
      'Pendiente',
      'En proceso',
      'Aprobado',
      'Rechazado',
      'Devuelto',
      'Cancelado',
    ]);
    expect(paymentStateLabel('chargeback')).toBe('chargeback');
  });

  it('posts to the routes of docs/api.md', () => {
    expect(actionRoute('cancel')).toEqual({
      ...routes.cancelPayment,
      path: '/portal/pagos/cancelar',
    });
    expect(actionRoute('refund')).toEqual({
      ...routes.refundPayment,
      path: '/portal/pagos/devolver',
    });
  });

  it('has a message for each error cancelar and devolver answer, said for the action', () => {
    for (const action of ['cancel', 'refund'] as const) {
      for (const code of [
        'INVALID_STATUS',
        'GATEWAY_ERROR',
        'PAYMENT_NOT_FOUND',
        'VALIDATION_ERROR',
      ] as const) {
        const message = actionErrorMessage(action, code, 'general');
        expect(message, `${action} ${code}`).not.toBe('general');
        expect(message).toMatch(/[áéíóúñ]|\bpago\b/);
      }
      expect(actionErrorMessage(action, 'RATE_LIMITED', 'Esperá 30 segundos')).toBe(
        'Esperá 30 segundos',
      );
    }
    expect(actionErrorMessage('cancel', 'INVALID_STATUS', '')).toContain('cancelar');
    expect(actionErrorMessage('refund', 'GATEWAY_ERROR', '')).toContain('no se devolvió nada');
  });

  it('reads the list again when the payment changed or vanished', () => {
    expect(reloadAfter('INVALID_STATUS')).toBe(true);
    expect(reloadAfter('PAYMENT_NOT_FOUND')).toBe(true);
    expect(reloadAfter('GATEWAY_ERROR')).toBe(false);
  });
});

describe('a payment in flight is never a dead end', () => {
  const url = 'https://www.mercadopago.com.ar/checkout/v1/redirect?pref_id=1';

  it('offers its checkout while issued with a live checkout_url, nothing else', () => {
    expect(continueHref({ estado: 'issued', checkout_url: url })).toBe(url);
    expect(continueHref({ estado: 'issued', checkout_url: null })).toBeNull();
    for (const estado of STATES.filter((s) => s !== 'issued'))
      expect(continueHref({ estado, checkout_url: url })).toBeNull();
  });

  it('links only http(s) checkouts', () => {
    expect(checkoutHref('javascript:alert(1)')).toBeNull();
    expect(checkoutHref('/relative')).toBeNull();
    expect(checkoutHref(undefined)).toBeNull();
    expect(checkoutHref('http://127.0.0.1:3000/portal/sandbox/checkout/1/1/x')).not.toBeNull();
  });

  it('says why "Pagar" was refused and that the list now shows what to do', () => {
    expect(inProgressMessage(12)).toBe(
      'Ya hay un pago en curso para alguna de esas facturas (pago n.º 12). Actualizamos la lista: podés continuar ese pago o cancelarlo.',
    );
    expect(inProgressMessage(null)).not.toContain('n.º');
  });
});
