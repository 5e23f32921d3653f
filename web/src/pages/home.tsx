import { useState } from 'preact/hooks';
import { takeFlash } from '../flash.js';
import type { PrivatePageProps } from '../page-props.js';
import type { Debt, AccountSummary } from '../api/types.js';
import {
  overdueCount,
  overdueFirst,
  NET_PARAM,
  PAY_PARAM,
  payableCount,
  paymentsInFlight,
  totalCents,
  type PartialRule,
} from '../lib/fifo.js';
import { creditPlan, type CreditPlan } from '../lib/credit.js';
import { checkoutHref } from '../lib/payment-actions.js';
import { formatCents, formatDate, formatMoney, plural } from '../lib/format.js';
import { useEmpresa } from '../ui/brand.js';
import { CreditLine } from '../ui/credit-line.js';
import { NET_LABEL } from '../ui/credit-plan.js';
import { pageHeading, pathFor, type PortalLink } from '../page-paths.js';
import { authCall } from '../session/session.js';
import { DebtSummary } from '../ui/debt-row.js';
import { ContinuePaymentLink } from '../ui/in-flight.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { Empty, ErrorBox, Loading, Notice } from '../ui/status.js';
import { TransferPanel } from '../ui/transfer-panel.js';
import { useLoad } from '../ui/use-load.js';
import { routes } from '../../../contract/routes.js';

const SHOWN = 5;

/** Home: mi-cuenta (balance, counts, last payment) and the debts, overdue first. */
export function HomePage(props: PrivatePageProps) {
  const [state, retry, refresh] = useLoad(
    () => Promise.all([authCall(routes.getAccountSummary), authCall(routes.listDebts)]),
    `home-${props.me.portal_user_id}`,
  );
  // What the page before said on the way here (a password just reset, a phone not saved).
  const [notice] = useState(takeFlash);
  return (
    <Page title={pageHeading('home', props.me.nombre)}>
      {notice && <Notice>{notice}</Notice>}
      {state.status === 'loading' && <Loading label="Cargando tu cuenta…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' && (
        <Account
          link={props.link}
          cuenta={state.data[0]}
          debts={state.data[1].items}
          rule={state.data[1].pago_parcial}
        />
      )}
      {state.status === 'ready' && <TransferPanel link={props.link} onChange={refresh} />}
    </Page>
  );
}

function Account(props: {
  link: PortalLink;
  cuenta: AccountSummary;
  debts: Debt[];
  rule: PartialRule;
}) {
  const { cuenta, link } = props;
  const debts = overdueFirst(props.debts);
  // The API's list is in FIFO order: lo vencido is its overdue head (lib/fifo.ts).
  const overdue = overdueCount(props.debts);
  const payable = payableCount(props.debts);
  // With a saldo a favor, the balance is the net and paying pays the net (docs/decisions.md #52).
  const plan = creditPlan(props.debts, payable, cuenta.saldo_a_favor, props.rule);
  const owed = cuenta.saldo_a_favor > 0 ? Math.max(0, cuenta.saldo_neto) : cuenta.saldo_total;
  // Each payment in flight once, on the first of its debts the list shows.
  const firstDebtOf = new Map(
    paymentsInFlight(debts).map((flight) => [flight.debtIds[0], flight] as const),
  );
  return (
    <>
      <dl class="summary home-summary">
        <div class="summary-item">
          <dt>Saldo pendiente</dt>
          <dd class="amount-large">{formatMoney(owed)}</dd>
          {cuenta.saldo_a_favor > 0 && (
            <dd>
              <CreditLine cuenta={cuenta} />
            </dd>
          )}
          {/* Beside the amount, in the phone's first screen (as a payment page puts "Pagar"). */}
          {payable > 0 && (
            <PayNow
              link={link}
              debts={props.debts}
              overdue={overdue}
              payable={payable}
              plan={plan}
            />
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
                        paymentId={flight.paymentId}
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
            <Link href={pathFor(link, 'debts')} class="button secondary">
              Ver y pagar facturas
            </Link>
          </p>
        </>
      )}
    </>
  );
}

/**
 * Home's pay buttons: lo vencido and everything; with a saldo a favor, what it leaves to pay
 * instead of everything (docs/decisions.md #52), or, where no choice leaves just that, what
 * paying everything costs beyond the net and who applies the credit.
 */
function PayNow(props: {
  link: PortalLink;
  debts: Debt[];
  overdue: number;
  payable: number;
  plan: CreditPlan | null;
}) {
  const { link, debts, overdue, payable, plan } = props;
  const business = useEmpresa()?.nombre ?? 'la empresa';
  if (plan?.kind === 'covered')
    return (
      <dd class="summary-pay credit-covered">
        Tu saldo a favor cubre lo que debés: no hace falta que pagues en línea. Lo aplica {business}{' '}
        en tu cuenta.
      </dd>
    );
  const overdueCents = totalCents(debts, overdue);
  // Lo vencido only while it pays less than the net: past it, it would pay the credit's share.
  const showOverdue = overdue > 0 && (plan?.kind !== 'net' || overdueCents < plan.cents);
  return (
    <>
      <dd class="actions summary-pay">
        {showOverdue && (
          <Link href={pathFor(link, 'debts', { [PAY_PARAM]: 'vencido' })} class="button">
            <span>
              Pagar lo vencido (<span class="nowrap">{formatCents(overdueCents)}</span>)
            </span>
          </Link>
        )}
        {plan?.kind === 'net' ? (
          <Link
            href={pathFor(link, 'debts', { [PAY_PARAM]: NET_PARAM })}
            class={`button${showOverdue ? ' secondary' : ''}`}
          >
            <span>
              {NET_LABEL} (<span class="nowrap">{formatCents(plan.cents)}</span>)
            </span>
          </Link>
        ) : (
          <Link
            href={pathFor(link, 'debts', { [PAY_PARAM]: 'todo' })}
            class={`button${showOverdue ? ' secondary' : ''}`}
          >
            <span>
              Pagar todo (<span class="nowrap">{formatCents(totalCents(debts, payable))}</span>)
            </span>
          </Link>
        )}
      </dd>
      {plan?.kind === 'whole' && (
        <dd class="summary-pay hint">
          Pagar todo en línea paga <span class="nowrap">{formatCents(plan.creditCents)}</span> más
          que tu saldo: un pago en línea no descuenta el saldo a favor, que lo aplica {business} en
          tu cuenta.
        </dd>
      )}
    </>
  );
}
