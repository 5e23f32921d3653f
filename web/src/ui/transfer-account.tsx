/**
 * The inside of "Pagá por transferencia" (ui/transfer-panel.tsx, which loads this file the first
 * time it opens): the customer's own CVU and alias at the business's collection provider
 * (GET /portal/transferencia), each with a copy button, the holder, CUIT and entity the bank will
 * show, and what is owed. While open and the page is in view it reads mi-cuenta every few seconds
 * (lib/transfer.ts): when a credit arrives it shows the receipt and tells the page (`onChange`) to
 * read its own figures again, without a reload. The pay link's payer reads through its link
 * (ui/payer.tsx) and, without the receipts' routes, is told the amount only.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { routes } from '../../../contract/routes.js';
import { ApiError } from '../api/http.js';
import { failedWith } from '../api/route-call.js';
import type { AccountSummary, Receipt, TransferAccount } from '../api/types.js';
import { formatCents, formatMoney, plural, toCents } from '../lib/format.js';
import { documentPdfName } from '../lib/invoices.js';
import { accountChanged, newReceipts, paymentSeen, transferPollDelay } from '../lib/transfer.js';
import { pathFor, type PortalLink } from '../page-paths.js';
import { CreditLine } from './credit-line.js';
import { Link } from './link.js';
import type { Payer } from './payer.js';
import { PdfButton } from './pdf-button.js';
import { ErrorBox, Loading } from './status.js';

/** The newest receipts read to tell a new one (GET /portal/recibos lists newest first). */
const WATCHED_RECEIPTS = 5;

type AccountState =
  | { status: 'loading' }
  | { status: 'ready'; account: TransferAccount }
  | { status: 'failed'; message: string };

/**
 * The customer's receipts as the session reads them, handed in by ui/transfer-panel.tsx: this
 * file imports no session code, so loading it on demand splits nothing off the first page.
 */
export interface Receipts {
  /** GET /portal/recibos, the newest `limit`. */
  list: (limit: number) => Promise<Receipt[]>;
  /** GET /portal/recibos/{id}/pdf. */
  pdf: (id: string) => Promise<Blob>;
}

/** What arrived while the panel was open: its amount, and its receipt when the payer may read it. */
interface Credited {
  cents: number;
  receipt: Receipt | null;
}

export function TransferAccountBody(props: {
  link: PortalLink;
  /** Whether the panel is open: closed, it looks no more. */
  open: boolean;
  /** The account asked for as the panel opened, beside this file's code. */
  first: Promise<TransferAccount>;
  /** A credit (or any change of the account) was seen: the page reads its figures again. */
  onChange: () => void;
  /** The business takes no transfers (422 TRANSFERENCIAS_NO_CONFIGURADAS). */
  onNone: () => void;
  /** Who reads: the customer's session or a pay link's token (ui/payer.tsx). */
  payer: Payer;
  /** The customer's receipts, for a full session only (a pay link may not list them). */
  receipts: Receipts | null;
}) {
  const { payer, receipts: reader } = props;
  const [state, setState] = useState<AccountState>({ status: 'loading' });
  const [cuenta, setCuenta] = useState<AccountSummary | null>(null);
  const [credited, setCredited] = useState<Credited | null>(null);
  // What the panel saw last: a change from it is what a poll looks for.
  const seen = useRef<{ cuenta: AccountSummary | null; receipts: Set<string> | null }>({
    cuenta: null,
    receipts: null,
  });
  const lastRead = useRef(0);
  const alive = useRef(true);
  useEffect(() => {
    void start(props.first);
    return () => {
      alive.current = false;
    };
  }, []);

  async function readReceipts(): Promise<Receipt[] | null> {
    return reader === null ? null : await reader.list(WATCHED_RECEIPTS);
  }

  function noteSeen(now: AccountSummary | null, receipts: Receipt[] | null) {
    if (now !== null) {
      seen.current.cuenta = now;
      lastRead.current = Date.now();
      setCuenta(now);
    }
    if (receipts !== null)
      seen.current.receipts = new Set([
        ...(seen.current.receipts ?? []),
        ...receipts.map((receipt) => receipt.id),
      ]);
  }

  async function start(account = payer.call(routes.getTransferAccount)) {
    setState({ status: 'loading' });
    try {
      const [answer, now, receipts] = await Promise.all([
        account,
        // Beside the account, not in its way: the first poll reads them if they fail here.
        payer.call(routes.getAccountSummary).catch(() => null),
        readReceipts().catch(() => null),
      ]);
      if (!alive.current) return;
      noteSeen(now, receipts);
      setState({ status: 'ready', account: answer });
    } catch (error) {
      if (!alive.current) return;
      if (failedWith(error, routes.getTransferAccount, 'TRANSFERENCIAS_NO_CONFIGURADAS')) {
        props.onNone();
        return;
      }
      setState({
        status: 'failed',
        message: failedWith(error, routes.getTransferAccount, 'GATEWAY_ERROR')
          ? 'No pudimos traer tu CVU: el proveedor de transferencias no respondió. Probá de nuevo en unos minutos.'
          : error instanceof ApiError
            ? error.message
            : 'No pudimos traer tu CVU. Probá de nuevo.',
      });
    }
  }

  /**
   * One look: mi-cuenta, and what changed since the last one. What was seen moves on only once
   * the look is done, so a receipts' read that fails is tried again by the next look.
   */
  async function look() {
    const now = await payer.call(routes.getAccountSummary);
    if (!alive.current) return;
    const before = seen.current.cuenta;
    lastRead.current = Date.now();
    setCuenta(now);
    if (before === null || !accountChanged(before, now)) {
      seen.current.cuenta = now;
      return;
    }
    props.onChange();
    if (reader !== null) {
      const known = seen.current.receipts;
      const receipts = await reader.list(WATCHED_RECEIPTS);
      if (!alive.current) return;
      noteSeen(now, receipts);
      const [newest] = known === null ? [] : newReceipts(known, receipts);
      if (newest) setCredited({ cents: toCents(newest.monto), receipt: newest });
      return;
    }
    noteSeen(now, null);
    const cents = paymentSeen(before, now);
    if (cents !== null) setCredited({ cents, receipt: null });
  }

  useWhileInView(props.open && state.status === 'ready', look, lastRead);

  if (state.status === 'loading') return <Loading label="Buscando tu CVU…" />;
  if (state.status === 'failed')
    return <ErrorBox message={state.message} onRetry={() => void start()} />;
  return (
    <>
      <p>
        Este CVU es solo tuyo: lo que transfieras a él se acredita en tu cuenta, sin avisar ni
        mandar el comprobante.
      </p>
      <AccountFacts account={state.account} />
      {cuenta && <Owed cuenta={cuenta} />}
      <div role="status" class="transfer-status">
        {credited ? (
          <CreditedNote
            credited={credited}
            cuenta={cuenta}
            link={props.link}
            pdf={reader?.pdf ?? null}
          />
        ) : (
          <p class="hint">
            Cuando llegue tu transferencia, el recibo aparece acá solo, sin recargar la página.
          </p>
        )}
      </div>
    </>
  );
}

/**
 * Looks again (`look`) while `active` and the page is in view: on the schedule of
 * lib/transfer.ts from when it became active or came back into view, and at once on coming back
 * (the customer returns from the bank's app). Nothing while hidden, closed or unmounted; one look
 * at a time.
 */
function useWhileInView(
  active: boolean,
  look: () => Promise<void>,
  lastRead: { current: number },
): void {
  const latest = useRef(look);
  latest.current = look;
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let looking = false;
    let stopped = false;
    let since = Date.now();
    const hidden = () => document.visibilityState === 'hidden';
    const cancel = () => {
      clearTimeout(timer);
      timer = undefined;
    };
    const schedule = () => {
      if (stopped || looking || timer !== undefined || hidden()) return;
      timer = setTimeout(lookNow, transferPollDelay(Date.now() - since));
    };
    function lookNow() {
      timer = undefined;
      looking = true;
      latest
        .current()
        .catch(() => undefined)
        .finally(() => {
          looking = false;
          schedule();
        });
    }
    const onVisibility = () => {
      if (hidden()) return cancel();
      if (looking) return;
      cancel();
      since = Date.now();
      lookNow();
    };
    document.addEventListener('visibilitychange', onVisibility);
    // Opened again after a while: look at once; just read (the panel's first load): wait.
    if (Date.now() - lastRead.current >= transferPollDelay(0) && !hidden()) lookNow();
    else schedule();
    return () => {
      stopped = true;
      cancel();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [active]);
}

function AccountFacts(props: { account: TransferAccount }) {
  const { account } = props;
  return (
    <dl class="transfer-facts">
      <CopyFact
        label="CVU"
        id="transfer-cvu"
        value={account.cvu}
        button="Copiar CVU"
        what="el CVU"
      />
      {account.alias !== null && (
        <CopyFact
          label="Alias"
          id="transfer-alias"
          value={account.alias}
          button="Copiar alias"
          what="el alias"
        />
      )}
      <div>
        <dt>Titular</dt>
        <dd>{account.titular}</dd>
      </div>
      {account.cuit !== null && (
        <div>
          <dt>CUIT</dt>
          <dd class="nowrap">{account.cuit}</dd>
        </div>
      )}
      <div>
        <dt>Entidad</dt>
        <dd>{account.proveedor}</dd>
      </div>
    </dl>
  );
}

/** A value with its "Copiar" button and the "Copiado" under it, announced. */
function CopyFact(props: {
  label: string;
  id: string;
  value: string;
  button: string;
  /** The value as a sentence names it, when it could not be copied: "el CVU". */
  what: string;
}) {
  const [copied, setCopied] = useState<{ done: boolean; text: string } | null>(null);
  async function copy() {
    // Cleared first, so copying again is announced again.
    setCopied(null);
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied({ done: true, text: 'Copiado' });
    } catch {
      // No clipboard (refused, or not a secure context): the value selected, to copy by hand.
      const shown = document.getElementById(props.id);
      const selection = window.getSelection();
      if (shown && selection) selection.selectAllChildren(shown);
      setCopied({
        done: false,
        text: `No pudimos copiarlo: ${props.what} quedó seleccionado, copialo a mano.`,
      });
    }
  }
  return (
    <div>
      <dt>{props.label}</dt>
      <dd class="transfer-copy">
        <span id={props.id} class="transfer-value">
          {props.value}
        </span>
        <span class="copy-action">
          <button
            type="button"
            class="button secondary"
            aria-describedby={props.id}
            onClick={() => void copy()}
          >
            {props.button}
          </button>
          <span role="status" class={`hint copy-status${copied?.done ? ' copy-done' : ''}`}>
            {copied?.text}
          </span>
        </span>
      </dd>
    </div>
  );
}

/**
 * What is owed, and how a transfer is applied: any amount, oldest debts first, the rest a favor
 * (the specification's decision 48 on transfers; docs/transfers.md).
 */
function Owed(props: { cuenta: AccountSummary }) {
  const { cuenta } = props;
  if (toCents(cuenta.saldo_total) <= 0)
    return (
      <p class="transfer-owed">No tenés deuda: lo que transfieras queda como saldo a favor.</p>
    );
  const late =
    cuenta.facturas_vencidas > 0
      ? `, ${plural(cuenta.facturas_vencidas, 'vencida', 'vencidas')}`
      : '';
  return (
    <>
      <p class="transfer-owed">
        Debés <strong class="nowrap">{formatMoney(cuenta.saldo_total)}</strong> (
        {plural(cuenta.facturas_pendientes, 'factura', 'facturas')}
        {late}).
        {cuenta.saldo_a_favor > 0 && (
          <>
            {' '}
            <CreditLine cuenta={cuenta} />
          </>
        )}
      </p>
      <p class="hint">
        Podés transferir todo o una parte: se aplica a tus facturas de la más antigua a la más
        nueva, y lo que sobre queda como saldo a favor.
      </p>
    </>
  );
}

function CreditedNote(props: {
  credited: Credited;
  pdf: Receipts['pdf'] | null;
  cuenta: AccountSummary | null;
  link: PortalLink;
}) {
  const { credited, cuenta, pdf } = props;
  const { receipt } = credited;
  const amount = <span class="nowrap">{formatCents(credited.cents)}</span>;
  return (
    <div class="alert alert-success">
      <p>
        <strong>Recibimos tu pago de {amount}</strong>
        {receipt ? (
          <>
            : recibo <span class="nowrap">{receipt.nrocomp}</span>.
          </>
        ) : (
          '.'
        )}{' '}
        {cuenta && <Remaining cuenta={cuenta} />}
      </p>
      {receipt && pdf && (
        <div class="actions">
          <PdfButton
            load={() => pdf(receipt.id)}
            filename={documentPdfName(receipt)}
            label="Descargar recibo (PDF)"
            secondary
          />
          <Link href={pathFor(props.link, 'receipts')}>Ver tus recibos</Link>
        </div>
      )}
    </div>
  );
}

function Remaining(props: { cuenta: AccountSummary }) {
  const { cuenta } = props;
  const credit =
    cuenta.saldo_a_favor > 0 ? (
      <>
        {' '}
        Tenés <span class="nowrap">{formatMoney(cuenta.saldo_a_favor)}</span> de saldo a favor.
      </>
    ) : null;
  if (toCents(cuenta.saldo_total) <= 0)
    return (
      <>
        Ya no debés nada.
        {credit}
      </>
    );
  return (
    <>
      Ahora debés <span class="nowrap">{formatMoney(cuenta.saldo_total)}</span>.{credit}
    </>
  );
}
