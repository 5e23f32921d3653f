import type { TenantContext } from '../../../platform/tenancy/tenancy.js';

/**
 * docs/api.md: the one URL every gateway notifies, always under `/backend` whatever the public prefix:
 * `{BACKEND_URL}/backend/portal/pagos/webhook?tenant_id=<int>&sucursal_id=<int>&token=<token>`.
 */
export function webhookUrl(backendUrl: string, tenant: TenantContext, token: string): string {
  const query = new URLSearchParams({
    tenant_id: String(tenant.tenantId),
    sucursal_id: String(tenant.sucursalId),
    token,
  });
  return `${backendUrl}/backend/portal/pagos/webhook?${query.toString()}`;
}
