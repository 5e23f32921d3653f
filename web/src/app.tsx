/**
 * The route table (preact-iso): which page a URL shows, and who may see it. A tenant's portal
 * (`/e/{tenant}/[s/{sucursal}/]...`) needs the tenant (GET /portal/empresas/{id}); its public
 * pages show to anyone, the others need a session of that tenant (and of the link's sucursal when
 * the link names one) or they send to the login with `next`. Pages other than the login are
 * loaded on demand (`lazy`): the login is the first page most visitors see.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { lazy, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import type { Me, Tenant } from './api/types.js';
import { LoginPage } from './pages/login.js';
import { ForgedLink, LandingPage, NotFoundPage, ResultLoginPage } from './pages/misc.js';
// Not on demand: it is the first page of a payer back from the gateway, often on a phone's slow
// link, and must say "Estamos confirmando tu pago" with the business's brand without another
// round trip (about 1.6 KB gzipped).
import { PaymentReturnPage } from './pages/payment-return.js';
import {
  PAGES,
  pageHeading,
  parseRoute,
  pathFor,
  positiveInt,
  PUBLIC_PAGES,
  safeNext,
  type PageName,
  type PortalLink,
} from './page-paths.js';
import type { SessionState } from './session/session.js';
import {
  identityOf,
  mayHaveSession,
  rememberedPayLink,
  rememberIdentity,
} from './portal-memory.js';
import { startPayLink } from './session/pay-link.js';
import { useSession } from './session/use-session.js';
import { usePayLink } from './session/use-pay-link.js';
import type { PrivatePageProps, PublicPageProps } from './page-props.js';
import { useTenant } from './tenant.js';
import { Page } from './ui/page.js';
import { useLookAgain } from './ui/look-again.js';
import { Shell } from './ui/shell.js';
import { ErrorBox, Loading } from './ui/status.js';

type Lazy<P> = ComponentType<P> & { preload?: () => Promise<unknown> };

/** A page on demand that says whether its code is here (then it shows without suspending). */
type OnDemand<P> = ComponentType<P> & { preload: () => Promise<unknown>; ready: () => boolean };

/**
 * A page whose code is fetched the first time it shows (or is preloaded). When the fetch fails
 * (no network, or a new build replaced the file) the page says so and offers a reload, rather
 * than leaving the previous page up with nothing happening.
 */
function onDemand<P>(load: () => Promise<ComponentType<P>>): OnDemand<P> {
  let ready = false;
  const page = lazy<ComponentType<P>>(() =>
    load()
      .catch(() => LoadFailed)
      .then((component) => {
        ready = true;
        return component;
      }),
  );
  return Object.assign(page, { ready: () => ready });
}

/**
 * Whether `page`'s code is here; while it is not, it is fetched, and the caller shows what it
 * knows meanwhile instead of an empty page (a suspended route shows nothing).
 */
function useReady(
  page: { preload: () => Promise<unknown>; ready: () => boolean } | undefined,
): boolean {
  const readyNow = page?.ready() ?? true;
  // A render, not a flag: the code may arrive between this render and the effect, and a flag
  // already true would not render again (the page would stay on "Cargando…" for good).
  const [, setRenders] = useState(0);
  useEffect(() => {
    if (readyNow || !page) return undefined;
    let live = true;
    void page.preload().then(() => live && setRenders((count) => count + 1));
    return () => {
      live = false;
    };
  }, [page, readyNow]);
  return readyNow;
}

function LoadFailed() {
  // Back online, the page's code can come: no need to wait for "Reintentar".
  useLookAgain((reason) => {
    if (reason === 'online') window.location.reload();
  });
  return (
    <Page title="No pudimos abrir esta página">
      <ErrorBox
        message="Revisá tu conexión a internet y probá de nuevo."
        onRetry={() => window.location.reload()}
      />
    </Page>
  );
}

const PUBLIC: Partial<Record<PageName, Lazy<PublicPageProps>>> = {
  login: LoginPage,
  register: onDemand(() => import('./pages/register.js').then((m) => m.RegisterPage)),
  forgot: onDemand(() => import('./pages/forgot.js').then((m) => m.ForgotPage)),
};

const PRIVATE: Partial<Record<PageName, OnDemand<PrivatePageProps>>> = {
  home: onDemand(() => import('./pages/home.js').then((m) => m.HomePage)),
  debts: onDemand(() => import('./pages/debts.js').then((m) => m.DebtsPage)),
  history: onDemand(() => import('./pages/history.js').then((m) => m.HistoryPage)),
  receipts: onDemand(() => import('./pages/receipts.js').then((m) => m.ReceiptsPage)),
  coupons: onDemand(() => import('./pages/coupons/page.js').then((m) => m.CouponsPage)),
  statement: onDemand(() => import('./pages/statement.js').then((m) => m.StatementPage)),
  invoices: onDemand(() => import('./pages/invoices.js').then((m) => m.InvoicesPage)),
  profile: onDemand(() => import('./pages/profile.js').then((m) => m.ProfilePage)),
};

/** A pay link's page: its code is asked for by main.tsx at once, beside the link's exchange. */
const PayLinkPage = onDemand(() => import('./pages/pay-link.js').then((m) => m.PayLinkPage));

const PaymentResultPage = onDemand(() =>
  import('./pages/payment-result.js').then((m) => m.PaymentResultPage),
);

/**
 * The code of the page a session leads to from `next` (or home), fetched beside the login's own
 * requests: once signed in, that page shows at once rather than after its code arrives.
 */
function prepareFor(next: string | null): void {
  const target = safeNext(next);
  const route = target === null ? null : parseRoute(target.split('?')[0] ?? '', '');
  if (route?.kind === 'result') void PaymentResultPage.preload();
  else void PRIVATE[route?.kind === 'page' ? route.page : 'home']?.preload();
}

export function App() {
  return (
    <LocationProvider>
      <Router>
        <Route path="/" component={LandingRoute} />
        <Route path="/pagos/resultado" component={ResultRoute} />
        <Route path="/e/:tenant/pagar" component={PayLinkRoute} />
        <Route path="/e/:tenant/s/:sucursal/*" component={TenantPortal} />
        <Route path="/e/:tenant/s/:sucursal" component={TenantPortal} />
        <Route path="/e/:tenant/*" component={TenantPortal} />
        <Route path="/e/:tenant" component={TenantPortal} />
        <Route default component={NotFoundRoute} />
      </Router>
    </LocationProvider>
  );
}

function LandingRoute() {
  return (
    <Shell session={useSession()}>
      <LandingPage />
    </Shell>
  );
}

function NotFoundRoute() {
  return (
    <Shell session={useSession()}>
      <NotFoundPage />
    </Shell>
  );
}

/**
 * /pagos/resultado: the return address names the tenant (and carries the status token) since
 * issue 35; an older one has none, and the tenant then comes from the session.
 */
function ResultRoute() {
  const session = useSession();
  const { url, query } = useLocation();
  const search = url.includes('?') ? url.slice(url.indexOf('?')) : '';
  const route = parseRoute('/pagos/resultado', search);
  if (route.kind === 'result' && route.link !== null)
    return (
      <TenantResult link={route.link} paymentId={route.paymentId} token={route.token} here={url} />
    );
  if (session.status !== 'active') {
    return (
      <Shell session={session}>
        {session.status === 'unknown' ? <Loading /> : <ResultLoginPage next={url} />}
      </Shell>
    );
  }
  return (
    <ActiveResult me={session.me} session={session} paymentId={positiveInt(query.payment_id)} />
  );
}

/**
 * The result page of a return address that names the tenant: branded at once. With a session of
 * that portal, the page as the session shows it; without one (or while it is being restored), what
 * the token lets anyone holding the address see, and the portal's login.
 */
function TenantResult(props: {
  link: PortalLink;
  paymentId: number | null;
  token: string | null;
  here: string;
}) {
  const { link, paymentId, token } = props;
  const session = useSession();
  const [empresa] = useTenant(link.tenantId);
  const [forged, setForged] = useState(false);
  const fits = sessionFits(session, link);
  // The signed-in view's code, fetched at once where a session may come back: until it is here
  // the view without a session stays (never an empty page between the two).
  const resultReady = useReady(fits ? PaymentResultPage : undefined);
  useEffect(() => {
    if (mayHaveSession(link.tenantId)) void PaymentResultPage.preload();
  }, []);
  const login = pathFor(link, 'login', { next: props.here });
  // Back from the checkout a pay link went to: the same link downloads the receipt.
  const payLink = fits || token === null ? null : rememberedPayLink(link.tenantId);
  useEffect(() => {
    if (payLink !== null) startPayLink(payLink, { tenantId: link.tenantId, sucursalId: null });
  }, [payLink]);
  let content;
  if (forged) content = <ForgedLink what="enlace de pago" />;
  else if (fits && resultReady)
    content = <PaymentResultPage paymentId={paymentId} me={session.me} />;
  else if (paymentId !== null && token !== null)
    content = (
      <PaymentReturnPage
        paymentId={paymentId}
        token={token}
        link={link}
        here={props.here}
        payLink={payLink !== null}
        // "Ingresar" only once there is surely no session: never to a customer signed in.
        offerLogin={session.status === 'anonymous'}
        onForged={() => setForged(true)}
      />
    );
  else if (session.status === 'unknown' || fits) content = <Loading />;
  else content = <ResultLoginPage next={props.here} login={login} />;
  return (
    <Shell
      session={session}
      home={forged ? null : link}
      tenant={!forged && empresa.status === 'ready' ? empresa.empresa : null}
      fits={fits && !forged}
    >
      {content}
    </Shell>
  );
}

/** Never a session's nav on a pay link's pages: they lead nowhere else. */
const NO_SESSION: SessionState = { status: 'anonymous', reason: 'none' };

/**
 * `/e/{tenant}/pagar`: a pay link's page, in the business's brand (none when the link is another
 * business's), without the customer's nav.
 */
function PayLinkRoute(props: { params: { tenant?: string } }) {
  const tenantId = positiveInt(props.params.tenant);
  if (tenantId === null) return <NotFoundRoute />;
  return <PayLinkFrame link={{ tenantId, sucursalId: null }} />;
}

function PayLinkFrame(props: { link: PortalLink }) {
  const { link } = props;
  const [empresa, retry] = useTenant(link.tenantId);
  const forged = usePayLink().status === 'forged';
  let content;
  if (empresa.status === 'error' && empresa.error.status === 404)
    content = (
      <NotFoundPage message="No encontramos esta empresa, o su portal no está activo. Revisá el enlace." />
    );
  else if (empresa.status === 'error' && !forged)
    content = (
      <Page title="Tu enlace de pago">
        <ErrorBox message={empresa.error.message} onRetry={retry} />
      </Page>
    );
  else content = <PayLinkPage link={link} />;
  return (
    <Shell
      session={NO_SESSION}
      home={forged ? null : link}
      tenant={!forged && empresa.status === 'ready' ? empresa.empresa : null}
      plain
    >
      {content}
    </Shell>
  );
}

function ActiveResult(props: { me: Me; session: SessionState; paymentId: number | null }) {
  const [empresa] = useTenant(props.me.tenant_id);
  return (
    <Shell
      session={props.session}
      home={{ tenantId: props.me.tenant_id, sucursalId: props.me.sucursal_id }}
      tenant={empresa.status === 'ready' ? empresa.empresa : null}
    >
      <PaymentResultPage paymentId={props.paymentId} me={props.me} />
    </Shell>
  );
}

/** The session belongs to the link's tenant (and sucursal, when the link fixes one). */
function sessionFits(
  session: SessionState,
  link: PortalLink,
): session is SessionState & { status: 'active' } {
  return (
    session.status === 'active' &&
    session.me.tenant_id === link.tenantId &&
    (link.sucursalId === null || session.me.sucursal_id === link.sucursalId)
  );
}

/** A tenant's portal: its shell, and the page of the rest of the path (a nested Router). */
function TenantPortal(props: { params: { tenant?: string; sucursal?: string } }) {
  const tenantId = positiveInt(props.params.tenant);
  const sucursalId =
    props.params.sucursal === undefined ? null : positiveInt(props.params.sucursal);
  if (tenantId === null || (props.params.sucursal !== undefined && sucursalId === null))
    return <NotFoundRoute />;
  return <TenantPages link={{ tenantId, sucursalId }} />;
}

function TenantPages(props: { link: PortalLink }) {
  const { link } = props;
  const session = useSession();
  const [empresa, retry] = useTenant(link.tenantId);
  const fits = sessionFits(session, link);
  const me = fits ? session.me : null;
  // Whoever is signed in is who the login form shows after a logout or a password change.
  useEffect(() => {
    if (me) rememberIdentity(identityOf(me));
  }, [me]);
  let content;
  if (empresa.status === 'loading') content = <Loading />;
  else if (empresa.status === 'error') {
    content =
      empresa.error.status === 404 ? (
        <NotFoundPage message="No encontramos esta empresa, o su portal no está activo. Revisá el enlace." />
      ) : (
        <Page title="Portal de clientes">
          <ErrorBox message={empresa.error.message} onRetry={retry} />
        </Page>
      );
  } else if (
    link.sucursalId !== null &&
    !empresa.empresa.sucursales.some((s) => s.id === link.sucursalId)
  ) {
    content = (
      <NotFoundPage
        message="La sucursal del enlace no es de esta empresa."
        home={pathFor({ tenantId: link.tenantId, sucursalId: null }, 'login')}
      />
    );
  } else {
    const portal: PortalContext = { link, empresa: empresa.empresa, session };
    content = (
      <Router>
        {(Object.keys(PAGES) as PageName[]).map((page) => (
          <Route
            key={page}
            path={`/${PAGES[page]}`}
            component={PageRoute}
            page={page}
            portal={portal}
          />
        ))}
        <Route default component={NotFoundPage} />
      </Router>
    );
  }
  return (
    <Shell
      session={session}
      home={link}
      tenant={empresa.status === 'ready' ? empresa.empresa : null}
      fits={fits}
    >
      {content}
    </Shell>
  );
}

interface PortalContext {
  link: PortalLink;
  empresa: Tenant;
  session: SessionState;
}

/** One page of a portal, behind its guard. */
function PageRoute(props: { page: PageName; portal: PortalContext }) {
  const { page, portal } = props;
  const { link, session } = portal;
  const { url, query } = useLocation();
  const Private = PUBLIC_PAGES.has(page) ? undefined : PRIVATE[page];
  const fits = sessionFits(session, link);
  const ready = useReady(fits ? Private : undefined);
  if (PUBLIC_PAGES.has(page)) {
    const next = query.next ?? null;
    // Shown before the session is known (a slow link would wait a round trip for nothing); a
    // session found meanwhile leaves the page.
    if (fits) return <Redirect to={safeNext(next) ?? pathFor(link, 'home')} />;
    const Public = PUBLIC[page] ?? LoginPage;
    return (
      <Public link={link} empresa={portal.empresa} next={next} prepare={() => prepareFor(next)} />
    );
  }
  if (!Private) return <NotFoundPage />;
  if (session.status === 'unknown') {
    // A browser that never signed in to this portal has no session to wait for: the login at
    // once, as fast as the login's own address (no refresh awaited, no page's code fetched).
    if (!mayHaveSession(link.tenantId))
      return <Redirect to={pathFor(link, 'login', { next: url })} />;
    // Fetch the page's code while the session is restored, not after.
    void Private.preload();
    return <Loading />;
  }
  if (!fits) return <Redirect to={pathFor(link, 'login', { next: url })} />;
  // Signed in and the page's code still on its way: its heading at once, not an empty page.
  if (!ready) return <Pending title={pageHeading(page, session.me.nombre)} />;
  return <Private link={link} me={session.me} />;
}

/** A page whose code has not arrived: its heading and "Cargando…". */
function Pending(props: { title: string }) {
  return (
    <Page title={props.title}>
      <Loading />
    </Page>
  );
}

/**
 * Goes to `to` once, when shown. Not again when `to` changes: while the next page's code loads,
 * preact-iso keeps this tree rendered under the new URL, whose query has no `next`, and a second
 * redirect would leave the page just reached (the result page after the login, for one).
 */
function Redirect(props: { to: string }) {
  const { route } = useLocation();
  useEffect(() => route(props.to, true), []);
  return <Loading />;
}
