import { formatMoney } from '../../../../platform/format.js';
import type { SandboxCheckout } from './checkout.js';

/** A page of the sandbox gateway and the Content-Security-Policy it is served with. */
export interface SandboxPage {
  html: string;
  contentSecurityPolicy: string;
}

const RESULTS: Record<string, string> = {
  aprobado: 'Pago aprobado: el recibo se genera en segundos (GET /portal/pagos/{id}/recibo).',
  rechazado: 'Pago rechazado: las facturas siguen pendientes.',
  pendiente: 'Pago pendiente de acreditación.',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(body: string): string {
  return `<!doctype html><html lang="es-AR"><head><meta charset="utf-8"><title>Sandbox de pagos</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
.total{font-size:2rem;margin:1rem 0}form{display:inline-block;margin-right:1rem}
button{font-size:1rem;padding:.6rem 1.4rem;border:0;border-radius:.3rem;cursor:pointer}
.ok{background:#1a7f37;color:#fff}.ko{background:#cf222e;color:#fff}.note{color:#666;font-size:.9rem}</style>
</head><body>${body}</body></html>`;
}

/**
 * The checkout page: the amount, and Approve / Reject while it is open. `base` is the page's own
 * path, which the buttons post to with `/approve` or `/reject` appended.
 */
export function checkoutPage(checkout: SandboxCheckout, base: string): SandboxPage {
  const { tenantName, payment, open } = checkout;
  const actions = open
    ? `<form method="post" action="${escapeHtml(base)}/approve"><button class="ok">Aprobar pago</button></form>
<form method="post" action="${escapeHtml(base)}/reject"><button class="ko">Rechazar pago</button></form>`
    : `<p>Este cobro ya no admite pagos (estado: ${escapeHtml(payment.status)}).</p>${backLink(payment)}`;
  // A form post's redirect counts as form-action in Chromium: the payer goes back to the
  // pages' origin (the checkout's back URLs), which may not be this one.
  const returns = returnOrigins(payment.back_urls);
  return {
    contentSecurityPolicy:
      `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${returns.join(' ')}`.trimEnd(),
    html: page(`<h1>Sandbox de pagos</h1><p>${escapeHtml(tenantName)}</p>
<p>${escapeHtml(payment.description)}</p><p class="total">${escapeHtml(formatMoney(payment.amount))}</p>
${actions}<p class="note">Pasarela de prueba: ningún dinero se mueve.</p>`),
  };
}

/** The development result page: how the payment went, as the back URL's query says. */
export function resultPage(paymentId: string, estado: string): SandboxPage {
  return {
    contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
    html: page(`<h1>Pago ${escapeHtml(paymentId)}</h1>
<p>${escapeHtml(RESULTS[estado] ?? `Estado: ${estado}`)}</p>
<p class="note">Página de desarrollo: en producción el navegador vuelve al portal.</p>`),
  };
}

/**
 * Where a closed checkout sends the payer (issue 46: no checkout page is a dead end): the back
 * URL of how it ended, which is the portal's result page; the page reads the real state anyway.
 */
function backLink(payment: SandboxCheckout['payment']): string {
  const { back_urls: back } = payment;
  const url =
    payment.status === 'approved' || payment.status === 'refunded'
      ? back.success
      : payment.status === 'pending'
        ? back.pending
        : back.failure;
  if (returnOrigins({ success: url, failure: url }).length === 0) return '';
  return `\n<p><a href="${escapeHtml(url)}">Ver el resultado del pago</a></p>`;
}

/** The http(s) origins the checkout sends the payer back to, as CSP sources. */
function returnOrigins(backUrls: { success: string; failure: string }): string[] {
  const origins = new Set<string>();
  for (const url of [backUrls.success, backUrls.failure]) {
    try {
      const { protocol, origin } = new URL(url);
      if (protocol === 'http:' || protocol === 'https:') origins.add(origin);
    } catch {
      // Not a URL: the redirect will fail anyway; nothing to allow.
    }
  }
  return [...origins];
}
