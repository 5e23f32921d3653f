/** A page of the unsubscribe link and the Content-Security-Policy it is served with. */
export interface UnsubscribePage {
  html: string;
  contentSecurityPolicy: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(body: string): string {
  return `<!doctype html><html lang="es-AR"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>Avisos de vencimiento</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222;line-height:1.5}
button{font-size:1rem;padding:.6rem 1.4rem;border:0;border-radius:.3rem;cursor:pointer;background:#0b5cad;color:#fff}
.note{color:#555;font-size:.9rem}</style>
</head><body>${body}</body></html>`;
}

/**
 * What a GET of the link shows: a button that posts, and nothing changed yet. Mail scanners and
 * link previews fetch every link of a message; only a person's press (or the mail client's own
 * one-click POST) turns reminders off.
 */
export function confirmPage(tenantName: string, action: string): UnsubscribePage {
  return {
    // The form posts to this same URL; nothing else loads.
    contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    html: page(`<h1>Avisos de vencimiento</h1>
<p>${escapeHtml(tenantName)} te avisa por e-mail cuando tus comprobantes están por vencer o vencieron.</p>
<p>¿Querés dejar de recibir estos avisos?</p>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Dejar de recibir avisos</button>
</form>
<p class="note">Si cambiás de idea, podés volver a activarlos en tu perfil del portal de clientes.</p>`),
  };
}

/** What a person who pressed the button sees. */
export function donePage(tenantName: string): UnsubscribePage {
  return {
    contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
    html: page(`<h1>Listo</h1>
<p>Ya no vas a recibir avisos de vencimiento de ${escapeHtml(tenantName)}.</p>
<p class="note">Podés volver a activarlos cuando quieras en tu perfil del portal de clientes.</p>`),
  };
}
