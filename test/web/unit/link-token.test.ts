import { describe, expect, it } from 'vitest';
import {
  accessClaims,
  expired,
  firstName,
  fragmentWithout,
  ownerFits,
  tokenInFragment,
} from '../../../web/src/lib/link-token.js';

const TOKEN = 'abcdefghijklmnopqrstuvwxyz_-0123456789ABCD';

function jwt(payload: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256' })}.${part(payload)}.signature`;
}

describe('a pay link or invitation token in the fragment', () => {
  it('is read by its name, only when it looks like one', () => {
    expect(tokenInFragment(`#enlace=${TOKEN}`, 'enlace')).toBe(TOKEN);
    expect(tokenInFragment(`#x=1&invitacion=${TOKEN}`, 'invitacion')).toBe(TOKEN);
    expect(tokenInFragment(`#enlace=${TOKEN}`, 'invitacion')).toBeNull();
    expect(tokenInFragment('#enlace=short', 'enlace')).toBeNull();
    expect(tokenInFragment(`#enlace=${TOKEN}<script>`, 'enlace')).toBeNull();
    expect(tokenInFragment('', 'enlace')).toBeNull();
  });

  it('leaves the fragment with whatever else it held', () => {
    expect(fragmentWithout(`#enlace=${TOKEN}`, 'enlace')).toBe('');
    expect(fragmentWithout(`#enlace=${TOKEN}&contacto=1`, 'enlace')).toBe('#contacto=1');
    expect(fragmentWithout('#contacto', 'enlace')).toBe('#contacto=');
  });
});

describe("the access token's owner", () => {
  it('is read from the payload, or null', () => {
    expect(accessClaims(jwt({ tenant_id: 7, sucursal_id: 2, exp: 100, alcance: 'pago' }))).toEqual({
      tenantId: 7,
      sucursalId: 2,
      exp: 100,
    });
    expect(accessClaims(jwt({ tenant_id: '7', sucursal_id: 2, exp: 100 }))).toBeNull();
    expect(accessClaims('not-a-jwt')).toBeNull();
    expect(accessClaims('a.!!!.c')).toBeNull();
  });

  it("must be the address's business (and sucursal when the address names one)", () => {
    expect(ownerFits({ tenantId: 1, sucursalId: 2 }, { tenantId: 1, sucursalId: null })).toBe(true);
    expect(ownerFits({ tenantId: 1, sucursalId: 2 }, { tenantId: 1, sucursalId: 2 })).toBe(true);
    expect(ownerFits({ tenantId: 1, sucursalId: 2 }, { tenantId: 2, sucursalId: null })).toBe(
      false,
    );
    expect(ownerFits({ tenantId: 1, sucursalId: 2 }, { tenantId: 1, sucursalId: 1 })).toBe(false);
  });

  it('is taken as expired 30 s before its exp', () => {
    const claims = { tenantId: 1, sucursalId: 1, exp: 1_000 };
    expect(expired(claims, 969_000)).toBe(false);
    expect(expired(claims, 970_000)).toBe(true);
  });
});

describe('the first name of "Hola, {first name}"', () => {
  it('takes the given name as the ERP writes it', () => {
    expect(firstName('Juan Pérez')).toBe('Juan');
    expect(firstName('PÉREZ, JUAN CARLOS')).toBe('Juan');
    expect(firstName('  María   González ')).toBe('María');
    expect(firstName('')).toBeNull();
  });
});
