/**
 * The path of the portal the payer left for the gateway (e.g. `/e/1/s/1/`), kept in this tab's
 * sessionStorage so /pagos/resultado, which has no tenant in its URL, can send a payer whose
 * session ended back to the right login. Only a path: never a token.
 */
const KEY = 'portal-home';

export function rememberPortal(path: string): void {
  try {
    window.sessionStorage.setItem(KEY, path);
  } catch {
    // Storage refused (private mode): the result page then says to use the company's link.
  }
}

export function rememberedPortal(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}
