/**
 * The console's frame: the business's brand (its colour made legible, its logo and name), who is
 * using it, the nav of its five sections, the view of the address, and the end of the session
 * (the token's `exp`, or a 401), which leaves the page saying SESSION_ENDED.
 */
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import type { Tenant } from '../api/types.js';
import { resolveApiUrl } from '../lib/brand.js';
import { applyPalette } from '../ui/palette.js';
import { brandPalette } from '../lib/contrast.js';
import { pathOf, SECTIONS, sectionOf, viewOf, type ConsoleView } from './lib/paths.js';
import { SESSION_ENDED, staffLabel, type StaffClaims } from './lib/token.js';
import { AttentionPage } from './pages/attention.js';
import { AuditPage } from './pages/audit.js';
import { InvitationsPage } from './pages/invitations.js';
import { ClientsPage } from './pages/clients.js';
import { PaymentPage } from './pages/payment.js';
import { PaymentsPage } from './pages/payments.js';
import { SummaryPage } from './pages/summary.js';
import { apiBase, fetchEmpresa, hasStaffSession, onStaffSessionEnded } from './staff-api.js';
import {
  ConsoleContext,
  ConsoleLink,
  ConsolePage,
  markNavigation,
  type ConsoleState,
} from './ui.js';

function Brand(props: { empresa: Tenant | null }) {
  const [failed, setFailed] = useState(false);
  const name = props.empresa?.nombre ?? 'Consola del comercio';
  const logo =
    props.empresa && !failed
      ? resolveApiUrl(props.empresa.logo_url, apiBase(), window.location.href)
      : null;
  return (
    <p class="brand">
      {logo && (
        <img
          class="brand-logo"
          src={logo}
          alt={name}
          width={40}
          height={40}
          decoding="async"
          onError={() => setFailed(true)}
        />
      )}
      <span class="brand-name" aria-hidden={logo ? 'true' : undefined}>
        {name}
      </span>
    </p>
  );
}

function View(props: { view: ConsoleView }) {
  const { view } = props;
  switch (view.kind) {
    case 'resumen':
      return <SummaryPage />;
    case 'pagos':
      return <PaymentsPage />;
    case 'pago':
      return <PaymentPage id={view.id} />;
    case 'atencion':
      return <AttentionPage />;
    case 'clientes':
      return <ClientsPage />;
    case 'invitaciones':
      return <InvitationsPage />;
    case 'auditoria':
      return <AuditPage />;
    case 'none':
      return (
        <ConsolePage title="No encontramos esta página">
          <p>
            <ConsoleLink to={{ kind: 'resumen' }}>Ir al resumen</ConsoleLink>
          </p>
        </ConsolePage>
      );
  }
}

function Ended(props: { empresa: Tenant | null }) {
  useEffect(() => {
    document.title = `Sesión terminada · ${props.empresa?.nombre ?? 'Consola del comercio'}`;
  }, [props.empresa?.nombre]);
  return (
    <>
      <h1>Consola del comercio</h1>
      <div class="alert alert-info" role="alert">
        <p class="session-ended">{SESSION_ENDED}</p>
        <p>
          Por seguridad, la sesión vive solo en esta pestaña: se cierra al vencer, al recargar o al
          cerrar la página.
        </p>
      </div>
    </>
  );
}

export function ConsoleApp(props: { claims: StaffClaims | null }) {
  const { claims } = props;
  const [live, setLive] = useState(hasStaffSession());
  const [empresa, setEmpresa] = useState<Tenant | null>(null);
  const [view, setView] = useState<ConsoleView>(() => viewOf(window.location.pathname));

  useEffect(() => onStaffSessionEnded(() => setLive(false)), []);
  useEffect(() => {
    if (!claims) return;
    let current = true;
    fetchEmpresa(claims.tenantId).then(
      (tenant) => current && setEmpresa(tenant),
      () => undefined, // the console works without the brand: the header then says its own name
    );
    return () => {
      current = false;
    };
  }, [claims?.tenantId]);
  useLayoutEffect(() => applyPalette(brandPalette(empresa?.marca.color ?? null)), [empresa]);
  useEffect(() => {
    const back = () => {
      markNavigation();
      setView(viewOf(window.location.pathname));
    };
    window.addEventListener('popstate', back);
    return () => window.removeEventListener('popstate', back);
  }, []);

  const navigate = (next: ConsoleView) => {
    const path = pathOf(next);
    if (path !== window.location.pathname) window.history.pushState(null, '', path);
    markNavigation();
    setView(next);
    window.scrollTo(0, 0);
  };

  const section = sectionOf(view);
  const state: ConsoleState | null = claims
    ? { claims, empresa, canAct: claims.rol === 'operador', navigate }
    : null;

  return (
    <>
      <a class="skip-link" href="#contenido">
        Saltar al contenido
      </a>
      <header class="top">
        <div class="top-inner console-top">
          <Brand empresa={empresa} />
          <p class="console-name">
            Consola del comercio
            {live && claims && <span class="console-who">{staffLabel(claims)}</span>}
          </p>
        </div>
        {live && state && (
          <ConsoleContext.Provider value={state}>
            <nav aria-label="Secciones de la consola" class="console-nav">
              <ul>
                {SECTIONS.map((entry) => (
                  <li key={entry.kind}>
                    <ConsoleLink
                      to={{ kind: entry.kind }}
                      current={section === entry.kind}
                      class="console-nav-link"
                    >
                      {entry.label}
                    </ConsoleLink>
                  </li>
                ))}
              </ul>
            </nav>
          </ConsoleContext.Provider>
        )}
      </header>
      <main id="contenido" tabIndex={-1} class="console-main">
        {live && state ? (
          <ConsoleContext.Provider value={state}>
            <View key={pathOf(view)} view={view} />
          </ConsoleContext.Provider>
        ) : (
          <Ended empresa={empresa} />
        )}
      </main>
    </>
  );
}
