/**
 * The saldo a favor on the pages that pay (docs/decisions.md #52, lib/credit.ts): what the debts
 * page says of it, and the words of the button that pays the rest.
 */
import type { CreditPlan } from '../lib/credit.js';
import { formatCents } from '../lib/format.js';
import { Notice } from './status.js';

/** The button (home, the debts page) paying what the credit does not cover. */
export const NET_LABEL = 'Pagar descontando el saldo a favor';

/** What a credit means for paying now, in the business's name; nothing without one. */
export function CreditNotice(props: { plan: CreditPlan | null; business: string }) {
  const { plan, business } = props;
  if (plan === null) return null;
  const credit = <Amount cents={plan.creditCents} />;
  if (plan.kind === 'covered')
    return (
      <Notice>
        <p>
          Tenés un saldo a favor de {credit}, que cubre todo lo que podés pagar ahora (
          <Amount cents={plan.owedCents} />
          ): no hace falta que pagues en línea. Lo aplica {business} en tu cuenta.
        </p>
      </Notice>
    );
  if (plan.kind === 'whole')
    return (
      <Notice>
        <p>
          Tenés un saldo a favor de {credit}, pero un pago en línea no lo descuenta y {business} no
          toma pagos en parte: si pagás todo en línea pagás <Amount cents={plan.owedCents} />,{' '}
          {credit} más que lo que debés descontando el saldo a favor (
          <Amount cents={plan.netCents} />
          ). El saldo a favor lo aplica {business} en tu cuenta, por ejemplo a tus próximas
          facturas.
        </p>
      </Notice>
    );
  const rest = plan.creditCents - plan.leftCents;
  return (
    <Notice>
      <p>
        Tenés un saldo a favor de {credit}. «{NET_LABEL}» paga <Amount cents={plan.cents} /> y deja
        pendientes <Amount cents={plan.leftCents} />, que cubre tu saldo a favor cuando {business}{' '}
        lo aplique en tu cuenta
        {rest > 0 && (
          <>
            {' '}
            (te quedan <Amount cents={rest} /> a favor)
          </>
        )}
        .
      </p>
    </Notice>
  );
}

function Amount(props: { cents: number }) {
  return <span class="nowrap">{formatCents(props.cents)}</span>;
}
