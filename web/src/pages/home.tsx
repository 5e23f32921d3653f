import type { PrivatePageProps } from '../page-props.js';
import type { Debt, AccountSummary } from '../api/types.js';
import {
  overdueCount,
  overdueFirst,
  PAY_PARAM,
  payableCount,
  paymentsInFlight,
  totalCents,
} from '../lib/fifo.js';
import { checkoutHref } from '../lib/payment-actions.js';
import { formatCents, formatDate, formatMoney, plural } from '../lib/format.js';
import { CreditLine } from '../ui/credit-line.js';
import { pathFor, type PortalLink } from '../page-paths.js';
import { authCall } from '../session/session.js';
import { DebtSummary } from '../ui/debt-row.js';
import { ContinuePaymentLink } from '../ui/in-flight.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { Empty, ErrorBox, Loading } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';
import { routes } from '../../../contract/routes.js';

const SHOWN = 5;

/** Home: mi-cuenta (balance, counts, last payment) and the debts, overdue first. */
export function HomePage(props: PrivatePageProps) {
  const [state, retry] = useLoad(
    () => Promise.all([authCall(routes.getAccountSummary), authCall(routes.listDebts)]),
    `home-${props.me.portal_user_id}`,
  );
  return (
    <Page title={`Hola, ${props.me.nombre}`}>
      {state.status === 'loading' && <Loading label="Cargando tu cuenta…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' && (
        <Account link={props.link} cuenta={state.data[0]} debts={state.data[1].items} />
      )}
    </Page>
  );
}

function Account(props: { link: PortalLink; cuenta: AccountSummary; debts: Debt[] }) {
  const { cuenta, link } = props;
  const debts = overdueFirst(props.debts);
  // The API's list is in FIFO order: lo vencido is its overdue head (lib/fifo.ts).
  const overdue = overdueCount(props.debts);
  const payable = payableCount(props.debts);
  // Each payment in flight once, on the first of its debts the list shows.
  const firstDebtOf = new Map(
    paymentsInFlight(debts).map((flight) => [flight.debtIds[0], flight] as const),
  );
  return (
    <>
      <dl class="summary">
        <div class="summary-item">
          <dt>Saldo pendiente</dt>
          <dd class="amount-large">{formatMoney(cuenta.saldo_total)}</dd>
          {cuenta.saldo_a_favor > 0 && (
            <dd>
              <CreditLine cuenta={cuenta} />
            </dd>
          )}
          <dd>
            <Link href={pathFor(link, 'statement')} class="summary-link">
              Ver tu estado de cuenta
            </Link>
          </dd>
        </div>
        <div class="summary-item">
          <dt>Facturas pendientes</dt>
          <dd>{cuenta.facturas_pendientes}</dd>
          <dd>
            <Link href={pathFor(link, 'debts')} class="summary-link">
              Ver tus facturas
            </Link>
          </dd>
        </div>
        <div class={`summary-item${cuenta.facturas_vencidas > 0 ? ' overdue' : ''}`}>
          <dt>Vencidas</dt>
          <dd>{cuenta.facturas_vencidas}</dd>
          <dd>
            <Link href={pathFor(link, 'debts')} class="summary-link">
              Ver las vencidas
            </Link>
          </dd>
        </div>
        <div class="summary-item">
          <dt>Último pago</dt>
          <dd>
            {cuenta.ultimo_pago ? (
              <>
                {formatMoney(cuenta.ultimo_pago.monto)} el {formatDate(cuenta.ultimo_pago.fecha)}
                <Link href={pathFor(link, 'receipts')} class="summary-link">
                  Ver tus recibos
                </Link>
              </>
            ) : (
              <>
                Todavía no hay pagos
                <Link href={pathFor(link, 'history')} class="summary-link">
                  Ver tus pagos
                </Link>
              </>
            )}
          </dd>
        </div>
      </dl>
      <h2>Tus facturas</h2>
      {debts.length === 0 ? (
        <Empty title="Estás al día">
          <p>No tenés facturas pendientes.</p>
        </Empty>
      ) : (
        <>
          {cuenta.facturas_vencidas > 0 && (
            <p class="alert alert-warning">
              Tenés {plural(cuenta.facturas_vencidas, 'factura vencida', 'facturas vencidas')}.
            </p>
          )}
          <ul class="debt-list">
            {debts.slice(0, SHOWN).map((debt) => {
              const flight = firstDebtOf.get(debt.id);
              const checkout = checkoutHref(flight?.checkoutUrl);
              return (
                <li key={debt.id} class={`debt${debt.vencido ? ' debt-overdue' : ''}`}>
                  <DebtSummary debt={debt} />
                  {/* A checkout left half-way is resumed from here too (issue 38). */}
                  {flight && checkout && (
                    <div class="actions">
                      <ContinuePaymentLink
                        href={checkout}
                        link={link}
                        label="Continuar el pago"
                        secondary
                      />
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
          {debts.length > SHOWN && (
            <p>y {plural(debts.length - SHOWN, 'factura más', 'facturas más')}.</p>
          )}
          <p class="actions">
            {overdue > 0 && (
              <Link href={pathFor(link, 'debts', { [PAY_PARAM]: 'vencido' })} class="button">
                <span>
                  Pagar lo vencido (
                  <span class="nowrap">{formatCents(totalCents(props.debts, overdue))}</span>)
                </span>
              </Link>
            )}
            {payable > 0 && (
              <Link
                href={pathFor(link, 'debts', { [PAY_PARAM]: 'todo' })}
                class={`button${overdue > 0 ? ' secondary' : ''}`}
              >
                <span>
                  Pagar todo (
                  <span class="nowrap">{formatCents(totalCents(props.debts, payable))}</span>)
                </span>
              </Link>
            )}
            <Link href={pathFor(link, 'debts')} class="button secondary">
              Ver y pagar facturas
            </Link>
          </p>
        </>
      )}
    </>
  );
}
