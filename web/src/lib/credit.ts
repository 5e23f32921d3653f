/**
 * The customer's saldo a favor on the pages that pay (docs/decisions.md #52): what to offer so
 * that an online payment and the credit together settle what can be paid now, without paying
 * the credit's part a second time. The credit itself is applied by the business in its ERP,
 * never by an online payment (#48); these are the debts the payment leaves for it. Pure, tested
 * in test/web/unit/credit.test.ts.
 */
import {
  choiceCents,
  planAmount,
  totalCents,
  type Choice,
  type PartialRule,
  type PayableDebt,
} from './fifo.js';
import { toCents } from './format.js';

/** What the saldo a favor changes on the pages that pay. */
export type CreditPlan =
  /** The credit covers everything that can be paid now: nothing needs paying online. */
  | { kind: 'covered'; creditCents: number; owedCents: number }
  /**
   * A FIFO choice whose rest the credit covers: `cents` is what it pays, `leftCents` what it
   * leaves pending (at most the credit), `netCents` the debt minus the credit.
   */
  | {
      kind: 'net';
      choice: Choice;
      cents: number;
      leftCents: number;
      creditCents: number;
      owedCents: number;
      netCents: number;
    }
  /**
   * No choice short of everything leaves only what the credit covers (whole debts only, the
   * newest bigger than the credit): paying everything pays `creditCents` more than the net.
   */
  | { kind: 'whole'; creditCents: number; owedCents: number; netCents: number };

/**
 * The plan for a saldo a favor of `credit` against the first `payable` debts, or null without
 * a credit or anything to pay. With partial payments on, the net: the oldest debts whole and the
 * next in part, up to the debt minus the credit; a part below the tenant's minimum is raised to
 * it (or the debt is paid whole when the minimum is no less than it), so the account is still
 * settled and what the payment adds to the credit is less than the minimum. Off, the shortest
 * FIFO prefix whose rest the credit covers, when there is one short of the whole list.
 */
export function creditPlan(
  debts: readonly PayableDebt[],
  payable: number,
  credit: number,
  rule: PartialRule,
): CreditPlan | null {
  const creditCents = toCents(credit);
  if (creditCents <= 0 || payable <= 0) return null;
  const owedCents = totalCents(debts, payable);
  if (creditCents >= owedCents) return { kind: 'covered', creditCents, owedCents };
  const netCents = owedCents - creditCents;
  const choice = rule.habilitado
    ? netChoice(debts, payable, netCents, rule)
    : wholeDebtsChoice(debts, payable, creditCents, owedCents);
  if (choice === null) return { kind: 'whole', creditCents, owedCents, netCents };
  const cents = choiceCents(debts, choice);
  return {
    kind: 'net',
    choice,
    cents,
    leftCents: owedCents - cents,
    creditCents,
    owedCents,
    netCents,
  };
}

/** The FIFO choice paying `netCents` (0 < net < what can be paid), its part at least the minimum. */
function netChoice(
  debts: readonly PayableDebt[],
  payable: number,
  netCents: number,
  rule: PartialRule,
): Choice {
  const plan = planAmount(debts, payable, netCents, rule);
  if ('choice' in plan) return plan.choice;
  // The one refusal left for an amount inside the range: its part is below the minimum.
  let whole = 0;
  while (whole < payable && totalCents(debts, whole + 1) < netCents) whole += 1;
  const lastDebe = toCents(debts[whole]?.debe ?? 0);
  const minimum = rule.monto_minimo === null ? 0 : toCents(rule.monto_minimo);
  return minimum < lastDebe
    ? { count: whole + 1, lastCents: minimum }
    : { count: whole + 1, lastCents: null };
}

/** The shortest FIFO prefix whose rest is at most the credit, when it is not the whole list. */
function wholeDebtsChoice(
  debts: readonly PayableDebt[],
  payable: number,
  creditCents: number,
  owedCents: number,
): Choice | null {
  for (let count = 1; count < payable; count += 1) {
    if (owedCents - totalCents(debts, count) <= creditCents) return { count, lastCents: null };
  }
  return null;
}

/** Whether `choice` is the plan's own (the debts page's button for it shows pressed). */
export function isPlanChoice(plan: CreditPlan | null, choice: Choice): boolean {
  return (
    plan?.kind === 'net' &&
    plan.choice.count === choice.count &&
    plan.choice.lastCents === choice.lastCents
  );
}
