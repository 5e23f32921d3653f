import { describe, expect, it } from 'vitest';
import { pathOf, sectionOf, viewOf } from '../../../web/src/comercio/lib/paths.js';
import {
  decodeBase64Url,
  fragmentWithoutToken,
  msUntilExpiry,
  readClaims,
  staffLabel,
  tokenFromFragment,
} from '../../../web/src/comercio/lib/token.js';
import {
  actionButton,
  actionConsequence,
  actionSentence,
  attentionLabel,
  csvFileName,
  formatMoment,
  invitationCsvSummary,
  invitationRefusalLabel,
  paymentStateLabel,
  reasonError,
  reasonRequired,
  searchTerm,
} from '../../../web/src/comercio/lib/words.js';

/** A JWT-shaped string with `payload` (the signature is not the client's to check). */
function tokenWith(payload: unknown): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(payload)}.c2lnbmF0dXJl`;
}

const CLAIMS = {
  iss: 'erp-admin',
  aud: 'portal-comercio',
  sub: 'u-7',
  tenant_id: 1,
  rol: 'operador',
  nombre: 'Ana Gómez',
  iat: 1_800_000_000,
  exp: 1_800_003_600,
};

describe('the staff token in the fragment', () => {
  it('is taken from #token= and the rest of the fragment is kept', () => {
    expect(tokenFromFragment('#token=abc.def.ghi')).toBe('abc.def.ghi');
    expect(tokenFromFragment('#x=1&token=abc')).toBe('abc');
    expect(tokenFromFragment('#token=')).toBeNull();
    expect(tokenFromFragment('')).toBeNull();
    expect(tokenFromFragment('#pagos')).toBeNull();
    expect(fragmentWithoutToken('#token=abc')).toBe('');
    expect(fragmentWithoutToken('#token=abc&x=1')).toBe('#x=1');
    expect(fragmentWithoutToken('')).toBe('');
  });

  it('has its claims read without verifying it: tenant, role, name (UTF-8), exp', () => {
    expect(readClaims(tokenWith(CLAIMS))).toEqual({
      sub: 'u-7',
      tenantId: 1,
      rol: 'operador',
      nombre: 'Ana Gómez',
      exp: 1_800_003_600,
    });
    expect(readClaims(tokenWith({ ...CLAIMS, nombre: undefined }))?.nombre).toBeNull();
    expect(readClaims(tokenWith({ ...CLAIMS, nombre: '  ' }))?.nombre).toBeNull();
    expect(readClaims(tokenWith({ ...CLAIMS, rol: 'lectura' }))?.rol).toBe('lectura');
  });

  it('is refused when it is not a staff token of this shape', () => {
    expect(readClaims('abc')).toBeNull();
    expect(readClaims('a.b')).toBeNull();
    expect(readClaims('a.***.c')).toBeNull();
    expect(readClaims(`a.${Buffer.from('not json').toString('base64url')}.c`)).toBeNull();
    expect(readClaims(tokenWith([1, 2]))).toBeNull();
    expect(readClaims(tokenWith({ ...CLAIMS, rol: 'admin' }))).toBeNull();
    expect(readClaims(tokenWith({ ...CLAIMS, tenant_id: '1' }))).toBeNull();
    expect(readClaims(tokenWith({ ...CLAIMS, tenant_id: 0 }))).toBeNull();
    expect(readClaims(tokenWith({ ...CLAIMS, sub: '' }))).toBeNull();
    expect(readClaims(tokenWith({ ...CLAIMS, exp: undefined }))).toBeNull();
    // A customer's portal token: no tenant_id claim of this form, no rol.
    expect(readClaims(tokenWith({ sub: '42', tid: 1, exp: 1 }))).toBeNull();
  });

  it('decodes base64url with and without padding, and refuses what is not', () => {
    expect(decodeBase64Url(Buffer.from('ñandú').toString('base64url'))).toBe('ñandú');
    expect(decodeBase64Url('YQ')).toBe('a');
    expect(decodeBase64Url('YQ==')).toBeNull();
    expect(decodeBase64Url('/w')).toBeNull();
    expect(decodeBase64Url('_w')).toBeNull(); // 0xff is not UTF-8
  });

  it('ends at exp, and says who is using the console', () => {
    expect(msUntilExpiry({ exp: 100 }, 99_000)).toBe(1_000);
    expect(msUntilExpiry({ exp: 100 }, 100_000)).toBe(0);
    expect(staffLabel({ nombre: 'Ana Gómez', sub: 'u-7', rol: 'operador' })).toBe(
      'Ana Gómez · operador',
    );
    expect(staffLabel({ nombre: null, sub: 'u-7', rol: 'lectura' })).toBe('u-7 · solo lectura');
  });
});

describe("the console's words", () => {
  it('confirms exactly what each action will do', () => {
    const refund = {
      kind: 'devolver',
      paymentId: 41,
      monto: 20000,
      cliente: 'Juan Pérez',
    } as const;
    expect(actionSentence(refund)).toBe('Devolver $ 20.000,00 del pago 41 a Juan Pérez');
    expect(actionButton(refund)).toBe('Devolver $ 20.000,00');
    expect(actionSentence({ kind: 'reintentar_recibo', paymentId: 7, cliente: 'Juan Pérez' })).toBe(
      'Reintentar el recibo del pago 7 de Juan Pérez',
    );
    const who = { cliente: 'María González', dniCuit: '27-28765431-1' };
    expect(actionSentence({ kind: 'desbloquear', ...who })).toBe(
      'Desbloquear la cuenta de María González (27-28765431-1)',
    );
    expect(actionSentence({ kind: 'cerrar_sesiones', ...who })).toBe(
      'Cerrar las sesiones de María González (27-28765431-1)',
    );
    expect(actionSentence({ kind: 'acceso', habilitado: false, ...who })).toBe(
      'Deshabilitar el acceso al portal de María González (27-28765431-1)',
    );
    expect(actionButton({ kind: 'acceso', habilitado: true, ...who })).toBe('Habilitar acceso');
    expect(actionSentence({ kind: 'enlace', ...who })).toBe(
      'Crear un enlace de pago de la cuenta de María González (27-28765431-1)',
    );
    expect(actionButton({ kind: 'enlace', ...who })).toBe('Crear enlace');
    expect(actionConsequence({ kind: 'enlace', ...who })).toMatch(/sin contraseña/);
  });

  it('asks for a reason: required for devolver and acceso, 500 characters at most', () => {
    expect(reasonRequired({ kind: 'devolver', paymentId: 1, monto: 1, cliente: 'x' })).toBe(true);
    expect(reasonRequired({ kind: 'acceso', habilitado: true, cliente: 'x', dniCuit: '1' })).toBe(
      true,
    );
    expect(reasonRequired({ kind: 'desbloquear', cliente: 'x', dniCuit: '1' })).toBe(false);
    expect(reasonRequired({ kind: 'enlace', cliente: 'x', dniCuit: '1' })).toBe(false);
    expect(reasonError('  ', true)).toMatch(/Escribí el motivo/);
    expect(reasonError('', false)).toBeNull();
    expect(reasonError('Cobro duplicado', true)).toBeNull();
    expect(reasonError('x'.repeat(500), true)).toBeNull();
    expect(reasonError('x'.repeat(501), false)).toMatch(/hasta 500/);
  });

  it('writes a moment as the API gives it, in the offset it carries', () => {
    expect(formatMoment('2026-05-12T10:45:31-03:00')).toBe('12/05/2026 10:45');
    expect(formatMoment('2026-05-12T23:59:00+14:00')).toBe('12/05/2026 23:59');
    expect(formatMoment('2026-05-12')).toBe('12/05/2026');
    expect(formatMoment(null)).toBe('—');
    expect(formatMoment('ayer')).toBe('—');
  });

  it('names states, reasons, the CSV and the search', () => {
    expect(paymentStateLabel('refunded')).toBe('Devuelto');
    expect(paymentStateLabel('otro')).toBe('otro');
    expect(attentionLabel('recibo_fallido')).toBe('Recibo fallido');
    expect(invitationRefusalLabel('cliente_inexistente')).toBe(
      'No hay un cliente con ese número en la sucursal',
    );
    expect(invitationRefusalLabel('otro_motivo')).toBe('otro_motivo');
    expect(invitationRefusalLabel(null)).toBe('No enviada');
    expect(invitationCsvSummary(2, 1)).toBe('2 enviadas, 1 no enviada.');
    expect(invitationCsvSummary(1, 0)).toBe('1 enviada, 0 no enviadas.');
    expect(csvFileName('2026-05-01', '2026-05-31')).toBe('pagos-2026-05-01-2026-05-31.csv');
    expect(csvFileName('2026-05-01', '')).toBe('pagos-desde-2026-05-01.csv');
    expect(csvFileName('', '')).toBe('pagos.csv');
    expect(searchTerm('  Pérez ')).toBe('Pérez');
    expect(searchTerm('   ')).toBeUndefined();
    expect(searchTerm('x'.repeat(150))).toHaveLength(100);
  });
});

describe("the console's addresses", () => {
  it('maps each view to its path and back, never with a token', () => {
    expect(viewOf('/comercio/')).toEqual({ kind: 'resumen' });
    expect(viewOf('/comercio')).toEqual({ kind: 'resumen' });
    expect(viewOf('/comercio/pagos')).toEqual({ kind: 'pagos' });
    expect(viewOf('/comercio/pagos/41')).toEqual({ kind: 'pago', id: 41 });
    expect(viewOf('/comercio/pagos/0')).toEqual({ kind: 'none' });
    expect(viewOf('/comercio/atencion/')).toEqual({ kind: 'atencion' });
    expect(viewOf('/comercio/otra')).toEqual({ kind: 'none' });
    expect(viewOf('/e/1/')).toEqual({ kind: 'none' });
    for (const view of [
      { kind: 'resumen' },
      { kind: 'pagos' },
      { kind: 'pago', id: 9 },
      { kind: 'clientes' },
      { kind: 'invitaciones' },
      { kind: 'auditoria' },
    ] as const)
      expect(viewOf(pathOf(view))).toEqual(view);
    expect(sectionOf({ kind: 'pago', id: 9 })).toBe('pagos');
  });
});
