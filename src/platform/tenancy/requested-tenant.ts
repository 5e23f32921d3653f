import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { parsePositiveInt4 } from '../ids.js';

export interface RequestedTenant {
  tenantId: number;
  sucursalId: number;
}

function fromHeader(request: FastifyRequest, header: string, field: string): number | undefined {
  const raw = request.headers[header];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  const id = parsePositiveInt4(value?.trim());
  if (id === undefined)
    throw new AppError('VALIDATION_ERROR', `${field} debe ser un entero positivo`);
  return id;
}

function pick(
  bodyValue: number | undefined,
  request: FastifyRequest,
  header: string,
  field: string,
): number {
  // docs/decisions.md #2: the body wins over the header; the schema already checked body values.
  const value = bodyValue ?? fromHeader(request, header, field);
  if (value === undefined) {
    throw new AppError('VALIDATION_ERROR', `${field} es obligatorio (en el cuerpo o en ${header})`);
  }
  return value;
}

/** tenant_id / sucursal_id of a public route: from the body, else X-Tenant-Id / X-Sucursal-Id. */
export function requestedTenant(
  request: FastifyRequest,
  body: { tenant_id?: number | undefined; sucursal_id?: number | undefined } | undefined,
): RequestedTenant {
  return {
    tenantId: pick(body?.tenant_id, request, 'x-tenant-id', 'tenant_id'),
    sucursalId: pick(body?.sucursal_id, request, 'x-sucursal-id', 'sucursal_id'),
  };
}
