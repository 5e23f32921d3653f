/**
 * Run-time configuration, `{ "apiBaseUrl": "" }` (empty = the page's own origin; or e.g.
 * `https://api.example.com` or `https://example.com/backend`), never baked into the build, so one
 * build serves every deployment. The API writes it into the page it serves (a JSON data block,
 * `#portal-config`); a page hosted elsewhere reads `config.json` beside index.html instead.
 */
export interface PortalConfig {
  apiBaseUrl: string;
}

export function parseConfig(value: unknown): PortalConfig {
  if (typeof value !== 'object' || value === null) return { apiBaseUrl: '' };
  const base = (value as { apiBaseUrl?: unknown }).apiBaseUrl;
  return { apiBaseUrl: typeof base === 'string' ? base.trim().replace(/\/+$/, '') : '' };
}

/** The block the API put in the page, or null (a static host, or a build served as it is). */
function inPage(): PortalConfig | null {
  const block = document.getElementById('portal-config');
  if (!block?.textContent) return null;
  try {
    return parseConfig(JSON.parse(block.textContent));
  } catch {
    return null;
  }
}

/**
 * The name of the tenant whose page the API served, when it wrote it into the page (issue 38:
 * the first paint names the business): the header keeps it while the tenant's data loads,
 * instead of falling back to "Portal de clientes" for a moment.
 */
export function servedTenantName(tenantId: number | null | undefined): string | null {
  const block = typeof document === 'undefined' ? null : document.getElementById('portal-config');
  if (tenantId == null || !block?.textContent) return null;
  try {
    const empresa = (JSON.parse(block.textContent) as { empresa?: unknown }).empresa;
    if (typeof empresa !== 'object' || empresa === null) return null;
    const { id, nombre } = empresa as { id?: unknown; nombre?: unknown };
    return id === tenantId && typeof nombre === 'string' && nombre.trim() ? nombre : null;
  } catch {
    return null;
  }
}

export async function loadConfig(): Promise<PortalConfig> {
  const given = inPage();
  if (given) return given;
  try {
    const response = await fetch(`${import.meta.env.BASE_URL}config.json`, { cache: 'no-cache' });
    if (!response.ok) return { apiBaseUrl: '' };
    return parseConfig(await response.json());
  } catch {
    return { apiBaseUrl: '' };
  }
}
