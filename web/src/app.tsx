/**
 * The shell and the route table: which page a URL shows, and who may see it. Public pages need
 * the tenant (GET /portal/empresas/{id}); the others need a session of that tenant (and of the
 * link's sucursal when the link names one), or they send to the login with `next`.
 */
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { Tenant, Me } from './api/types.js';
import { CouponsPage } from './pages/coupons.js';
import { DebtsPage } from './pages/debts.js';
import { ForgotPage } from './pages/forgot.js';
import { HistoryPage } from './pages/history.js';
import { HomePage } from './pages/home.js';
import { LoginPage } from './pages/login.js';
import { LandingPage, NotFoundPage, ResultLoginPage } from './pages/misc.js';
import { PaymentResultPage } from './pages/payment-result.js';
import { ProfilePage } from './pages/profile.js';
import { RegisterPage } from './pages/register.js';
import { navigate, useLocation } from './router.js';
import {
  parseRoute,
  pathFor,
  PUBLIC_PAGES,
  safeNext,
  type PageName,
  type PortalLink,
} from './routes.js';
import { logout, type SessionState } from './session/session.js';
import { useSession } from './session/use-session.js';
import { useTenant } from './tenant.js';
import { Link } from './ui/link.js';
import { Page } from './ui/page.js';
import { ErrorBox, Loading } from './ui/status.js';

export function App() {
  const location = useLocation();
  const session = useSession();
  const route = parseRoute(location.pathname, location.search);
  switch (route.kind) {
    case 'landing':
      return (
        <Shell session={session}>
          <LandingPage />
        </Shell>
      );
    case 'not-found':
      return (
        <Shell session={session}>
          <NotFoundPage />
        </Shell>
      );
    case 'result':
      return (
        <ResultRoute
          session={session}
          paymentId={route.paymentId}
          here={`${location.pathname}${location.search}`}
        />
      );
    case 'page':
      return (
        <TenantRoute
          link={route.link}
          page={route.page}
          session={session}
          here={`${location.pathname}${location.search}`}
          next={new URLSearchParams(location.search).get('next')}
        />
      );
  }
}

/** /pagos/resultado: the tenant comes from the session (the gateway's return has none). */
function ResultRoute(props: { session: SessionState; paymentId: number | null; here: string }) {
  const { session } = props;
  if (session.status !== 'active') {
    return (
      <Shell session={session}>
        {session.status === 'unknown' ? <Loading /> : <ResultLoginPage next={props.here} />}
      </Shell>
    );
  }
  return <ActiveResult me={session.me} session={session} paymentId={props.paymentId} />;
}

function ActiveResult(props: { me: Me; session: SessionState; paymentId: number | null }) {
  const [empresa] = useTenant(props.me.tenant_id);
  return (
    <Shell
      session={props.session}
      home={homeLink(props.me)}
      empresa={empresa.status === 'ready' ? empresa.empresa.nombre : null}
    >
      <PaymentResultPage paymentId={props.paymentId} me={props.me} />
    </Shell>
  );
}

function homeLink(me: Me): PortalLink {
  return { tenantId: me.tenant_id, sucursalId: me.sucursal_id };
}

/** The session belongs to the link's tenant (and sucursal, when the link fixes one). */
function sessionFits(
  session: SessionState,
  link: PortalLink,
): session is SessionState & {
  status: 'active';
} {
  return (
    session.status === 'active' &&
    session.me.tenant_id === link.tenantId &&
    (link.sucursalId === null || session.me.sucursal_id === link.sucursalId)
  );
}

function TenantRoute(props: {
  link: PortalLink;
  page: PageName;
  session: SessionState;
  here: string;
  next: string | null;
}) {
  const { link, page, session } = props;
  const [empresa, retry] = useTenant(link.tenantId);
  const name = empresa.status === 'ready' ? empresa.empresa.nombre : null;
  const shell = (children: ComponentChildren) => (
    <Shell
      session={session}
      home={link}
      empresa={name}
      fits={sessionFits(session, link)}
      current={page}
    >
      {children}
    </Shell>
  );
  if (empresa.status === 'loading') return shell(<Loading />);
  if (empresa.status === 'error') {
    return shell(
      empresa.error.status === 404 ? (
        <NotFoundPage message="No encontramos esta empresa, o su portal no está activo. Revisá el enlace." />
      ) : (
        <Page title="Portal de clientes">
          <ErrorBox message={empresa.error.message} onRetry={retry} />
        </Page>
      ),
    );
  }
  const known = empresa.empresa.sucursales.some((s) => s.id === link.sucursalId);
  if (link.sucursalId !== null && !known) {
    return shell(
      <NotFoundPage
        message="La sucursal del enlace no es de esta empresa."
        home={pathFor({ tenantId: link.tenantId, sucursalId: null }, 'login')}
      />,
    );
  }
  if (PUBLIC_PAGES.has(page)) {
    if (session.status === 'unknown') return shell(<Loading />);
    if (sessionFits(session, link))
      return shell(<Redirect to={safeNext(props.next) ?? pathFor(link, 'home')} />);
    return shell(
      <PublicPage page={page} link={link} empresa={empresa.empresa} next={props.next} />,
    );
  }
  if (session.status === 'unknown') return shell(<Loading />);
  if (!sessionFits(session, link))
    return shell(<Redirect to={pathFor(link, 'login', { next: props.here })} />);
  return shell(<PrivatePage page={page} link={link} me={session.me} />);
}

function PublicPage(props: {
  page: PageName;
  link: PortalLink;
  empresa: Tenant;
  next: string | null;
}) {
  switch (props.page) {
    case 'register':
      return <RegisterPage link={props.link} empresa={props.empresa} />;
    case 'forgot':
      return <ForgotPage link={props.link} empresa={props.empresa} />;
    default:
      return <LoginPage link={props.link} empresa={props.empresa} next={props.next} />;
  }
}

function PrivatePage(props: { page: PageName; link: PortalLink; me: Me }) {
  switch (props.page) {
    case 'debts':
      return <DebtsPage link={props.link} userId={props.me.portal_user_id} />;
    case 'history':
      return <HistoryPage link={props.link} userId={props.me.portal_user_id} />;
    case 'coupons':
      return <CouponsPage userId={props.me.portal_user_id} />;
    case 'profile':
      return <ProfilePage link={props.link} userId={props.me.portal_user_id} />;
    default:
      return <HomePage link={props.link} me={props.me} />;
  }
}

function Redirect(props: { to: string }) {
  useEffect(() => navigate(props.to, { replace: true }), [props.to]);
  return <Loading />;
}

/** The signed-in pages of the nav, in order. */
const NAV: readonly (readonly [PageName, string])[] = [
  ['home', 'Inicio'],
  ['debts', 'Facturas'],
  ['history', 'Pagos'],
  ['coupons', 'Cupones'],
  ['profile', 'Perfil'],
];

function Shell(props: {
  session: SessionState;
  home?: PortalLink | null;
  empresa?: string | null;
  fits?: boolean;
  /** The page shown, marked in the nav with aria-current. */
  current?: PageName;
  children: ComponentChildren;
}) {
  const { home } = props;
  const signedIn = props.session.status === 'active' && (props.fits ?? true) && home;
  return (
    <>
      <a class="skip-link" href="#contenido">
        Saltar al contenido
      </a>
      <header class="top">
        <div class="top-inner">
          <p class="brand">
            {home ? (
              <Link href={pathFor(home, signedIn ? 'home' : 'login')}>
                {props.empresa ?? 'Portal de clientes'}
              </Link>
            ) : (
              (props.empresa ?? 'Portal de clientes')
            )}
          </p>
          {signedIn && (
            <nav aria-label="Principal">
              <ul>
                {NAV.map(([page, label]) => (
                  <li key={page}>
                    <Link href={pathFor(home, page)} current={props.current === page}>
                      {label}
                    </Link>
                  </li>
                ))}
                <li>
                  <button type="button" class="link-button" onClick={() => void logout()}>
                    Salir
                  </button>
                </li>
              </ul>
            </nav>
          )}
        </div>
      </header>
      <main id="contenido" tabIndex={-1}>
        {props.children}
      </main>
    </>
  );
}
