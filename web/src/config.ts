/**
 * Run-time configuration: `config.json` beside index.html, `{ "apiBaseUrl": "" }` (empty = the
 * page's own origin; or e.g. `https://api.example.com` or `https://example.com/backend`). Read
 * at start, never baked into the build, so one build serves every deployment.
 */
export interface PortalConfig {
  apiBaseUrl: string;
}

export function parseConfig(value: unknown): PortalConfig {
  if (typeof value !== 'object' || value === null) return { apiBaseUrl: '' };
  const base = (value as { apiBaseUrl?: unknown }).apiBaseUrl;
  return { apiBaseUrl: typeof base === 'string' ? base.trim().replace(/\/+$/, '') : '' };
}

export async function loadConfig(): Promise<PortalConfig> {
  try {
    const response = await fetch(`${import.meta.env.BASE_URL}config.json`, { cache: 'no-cache' });
    if (!response.ok) return { apiBaseUrl: '' };
    return parseConfig(await response.json());
  } catch {
    return { apiBaseUrl: '' };
  }
}
