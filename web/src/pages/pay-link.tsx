/**
 * The page a pay link opens (`/e/{tenant}/pagar#enlace=<token>`, docs/pay-links.md): whoever
 * holds the link sees what the account owes and pays it, and nothing else. The token left the
 * address in main.tsx and was exchanged there (session/pay-link.ts); this page shows what the
 * exchange gave: the debts (the debts page's own list, choice and pay bar, through the link's
 * token), the expired page, or, for a token of another business than the address's, a refusal
 * without any brand.
 */
import { useState } from 'preact/hooks';
import { routes } from '../../../contract/routes.js';
import type { Coupon, Debt, Tenant } from '../api/types.js';
import { totalCents } from '../lib/fifo.js';
import { firstName } from '../lib/link-token.js';
import { formatCents, plural } from '../lib/format.js';
import { pathFor, type PortalLink } from '../page-paths.js';
import { rememberPayLink } from '../portal-memory.js';
import {
  payerBlob,
  payerCall,
  payLinkToken,
  retryPayLink,
  type PayLinkState,
} from '../session/pay-link.js';
import { usePayLink } from '../session/use-pay-link.js';
import { ContactLinks, useEmpresa } from '../ui/brand.js';
import { Link } from '../ui/link.js';
import type { Outcome } from '../ui/outcome.js';
import { OutcomeBox } from '../ui/outcome.js';
import { Page } from '../ui/page.js';
import { PayerContext, type Payer } from '../ui/payer.js';
import { Empty, ErrorBox, Loading } from '../ui/status.js';
import { TransferPanel } from '../ui/transfer-panel.js';
import { useLoad } from '../ui/use-load.js';
import { Chooser } from './debts.js';
import { ForgedLink } from './misc.js';

export function PayLinkPage(props: { link: PortalLink }) {
  const state = usePayLink();
  const { link } = props;
  switch (state.status) {
    case 'none':
      return <LinkUnusable link={link} incomplete />;
    case 'exchanging':
      return (
        <Page title="Tu enlace de pago">
          <Loading label="Abriendo tu enlace de pago…" />
        </Page>
      );
    case 'error':
      return (
        <Page title="Tu enlace de pago">
          <ErrorBox message={state.error.message} onRetry={retryPayLink} />
        </Page>
      );
    case 'refused':
      return <LinkUnusable link={link} />;
    case 'forged':
      return <ForgedLink />;
    case 'ready':
      return <PayDebts link={link} state={state} />;
  }
}

/** An expired or revoked link (or an address without its token): plainly, and what to do. */
function LinkUnusable(props: { link: PortalLink; incomplete?: boolean }) {
  const empresa = useEmpresa();
  const name = empresa?.nombre ?? 'la empresa';
  return (
    <Page title={props.incomplete ? 'Falta el enlace de pago' : 'Este enlace de pago ya no sirve'}>
      <p>
        {props.incomplete
          ? 'La dirección no tiene el enlace completo. Abrilo de nuevo desde el mensaje que recibiste.'
          : 'El enlace venció o fue anulado: ya no se puede pagar con él.'}
      </p>
      <h2>Pedí un enlace nuevo a {name}</h2>
      <NewLinkContact empresa={empresa} />
      <p>O, si tenés cuenta, ingresá y pagá desde ahí.</p>
      <p>
        <Link href={pathFor(props.link, 'login')} class="button">
          Ingresar a tu cuenta
        </Link>
      </p>
    </Page>
  );
}

function NewLinkContact(props: { empresa: Tenant | null }) {
  const { empresa } = props;
  if (!empresa) return <p>Comunicate con la empresa que te envió el mensaje.</p>;
  const contact = <ContactLinks tenant={empresa} />;
  return (
    <>
      <p>Comunicate con {empresa.nombre} y pedile que te envíe otro:</p>
      {contact}
    </>
  );
}

function PayDebts(props: { link: PortalLink; state: PayLinkState & { status: 'ready' } }) {
  const { claims } = props.state;
  const link: PortalLink = { tenantId: props.link.tenantId, sucursalId: claims.sucursalId };
  const empresa = useEmpresa();
  const [round, setRound] = useState(0);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [payer] = useState<Payer>(() => ({
    call: payerCall,
    blob: payerBlob,
    full: false,
    beforeCheckout: () => {
      const token = payLinkToken();
      if (token !== null) rememberPayLink(link.tenantId, token);
    },
  }));
  const [state, retry, refresh] = useLoad(
    () =>
      Promise.all([
        payerCall(routes.listDebts),
        payerCall(routes.getAccountSummary).catch(() => null),
      ]).then(([debts, cuenta]) => ({ ...debts, credit: cuenta?.saldo_a_favor ?? 0 })),
    `pay-link-${claims.tenantId}-${round}`,
  );
  const nombre = firstName(props.state.nombre);
  const business = empresa?.nombre ?? 'la empresa';
  return (
    <PayerContext.Provider value={payer}>
      <Page title={nombre ? `Hola, ${nombre}` : 'Hola'}>
        <OutcomeBox outcome={outcome} />
        {state.status === 'loading' && <Loading label="Cargando lo que tenés para pagar…" />}
        {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
        {state.status === 'ready' &&
          (state.data.items.length === 0 ? (
            <Empty title="Estás al día">
              <p>No tenés facturas pendientes con {business}.</p>
            </Empty>
          ) : (
            <>
              <p>
                Esto es lo que tenés para pagar a {business}: {debtSummary(state.data.items)}.
              </p>
              <Chooser
                key={`${round}-${state.version}`}
                link={link}
                debts={state.data.items}
                reload={retry}
                onChanged={(next) => {
                  setOutcome(next);
                  setRound((n) => n + 1);
                }}
                initial={{ count: 0, lastCents: null }}
                rule={state.data.pago_parcial}
                coupons={NO_COUPONS}
                credit={state.data.credit}
              />
            </>
          ))}
        {state.status === 'ready' && <TransferPanel link={link} onChange={refresh} />}
        <p class="links quiet-links">
          ¿Tenés cuenta? <Link href={pathFor(link, 'login')}>Ingresá</Link>
        </p>
      </Page>
    </PayerContext.Provider>
  );
}

/** A pay link cannot read the coupons (a customer's route): none are said. */
const NO_COUPONS: ReadonlyMap<string, Coupon> = new Map<string, Coupon>();

/** "3 facturas, $ 12.000,00 (2 vencidas)": the debts page's own sums (lib/fifo.ts). */
function debtSummary(debts: Debt[]): string {
  const overdue = debts.filter((debt) => debt.vencido).length;
  const late = overdue === 0 ? '' : ` (${plural(overdue, 'vencida', 'vencidas')})`;
  return `${plural(debts.length, 'factura', 'facturas')}, ${formatCents(totalCents(debts, debts.length))}${late}`;
}
