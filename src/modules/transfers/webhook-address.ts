/**
 * The address the portal registers with a tenant's provider (docs/transfers.md "Turning it on"):
 * `{BACKEND_URL}{public prefix}/portal/transferencias/{provider}/{tenant_id}`, to which the
 * provider adds `/collection_received` or `/settlement_received`. Without BACKEND_URL there is
 * no public address to give, and none is registered.
 */
export function createWebhookAddress(
  backendUrl: string | undefined,
  publicPrefix: string,
): ((provider: string, tenantId: number) => string) | undefined {
  if (backendUrl === undefined || backendUrl === '') return undefined;
  const base = backendUrl.replace(/\/+$/, '');
  return (provider, tenantId) =>
    `${base}${publicPrefix}/portal/transferencias/${provider}/${tenantId}`;
}
