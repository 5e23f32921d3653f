/**
 * "Pagá por transferencia" (docs/web.md "Paying by bank transfer"), on home, the debts page and
 * the pay link's page: a disclosure that asks for nothing until the customer opens it. Opened the
 * first time, it asks GET /portal/transferencia (the first call assigns the customer's CVU at the
 * provider) and loads its inside (ui/transfer-account.tsx) side by side, so neither the pages'
 * first paint nor their code waits for it. A business without transfers (422) removes it, and
 * the tab offers it no more for that business (portal-memory.ts).
 */
import type { ComponentType } from 'preact';
import { useState } from 'preact/hooks';
import { routes } from '../../../contract/routes.js';
import type { TransferAccount } from '../api/types.js';
import type { PortalLink } from '../page-paths.js';
import { knowsNoTransfers, rememberNoTransfers } from '../portal-memory.js';
import { authBlob, authCall } from '../session/session.js';
import { usePayer } from './payer.js';
import { ErrorBox, Loading } from './status.js';
import type { Receipts, TransferAccountBody } from './transfer-account.js';

/** A full session reads the customer's receipts; a pay link may not (contract/routes.ts). */
const SESSION_RECEIPTS: Receipts = {
  list: async (limit) => (await authCall(routes.listReceipts, { query: { limit } })).recibos,
  pdf: (id) => authBlob(routes.getReceiptPdf, { params: { id } }),
};

type Body = ComponentType<Parameters<typeof TransferAccountBody>[0]>;

type Inside =
  | { status: 'none' }
  | { status: 'loading'; first: Promise<TransferAccount> }
  | { status: 'ready'; first: Promise<TransferAccount>; Body: Body }
  /** Its code did not arrive (no network, or a new build replaced the file). */
  | { status: 'failed'; first: Promise<TransferAccount> };

export function TransferPanel(props: {
  link: PortalLink;
  /** A credit (or any change of the account) was seen: the page reads its figures again. */
  onChange: () => void;
}) {
  const payer = usePayer();
  const [off, setOff] = useState(() => knowsNoTransfers(props.link.tenantId));
  const [open, setOpen] = useState(false);
  const [inside, setInside] = useState<Inside>({ status: 'none' });

  function loadInside(first: Promise<TransferAccount>) {
    setInside({ status: 'loading', first });
    import('./transfer-account.js').then(
      (module) => setInside({ status: 'ready', first, Body: module.TransferAccountBody }),
      () => setInside({ status: 'failed', first }),
    );
  }

  function toggle() {
    const next = !open;
    setOpen(next);
    if (next && inside.status === 'none') {
      const first = payer.call(routes.getTransferAccount);
      // Its failure is the inside's to say, once it is there.
      first.catch(() => undefined);
      loadInside(first);
    }
  }

  function none() {
    // The business takes no transfers: nothing of them is shown, now or again in this tab.
    rememberNoTransfers(props.link.tenantId);
    setOff(true);
    document.getElementById('page-title')?.focus();
  }

  if (off) return null;
  return (
    <section class="transfer" aria-labelledby="transfer-title">
      <h2 id="transfer-title" class="transfer-title">
        <button
          type="button"
          class="transfer-toggle"
          aria-expanded={open}
          aria-controls="transfer-body"
          onClick={toggle}
        >
          Pagá por transferencia
        </button>
      </h2>
      <p class="hint transfer-hint">
        Se acredita sola en minutos, desde cualquier banco o billetera.
      </p>
      <div id="transfer-body" class="transfer-body" hidden={!open}>
        {inside.status === 'loading' && <Loading label="Buscando tu CVU…" />}
        {inside.status === 'failed' && (
          <ErrorBox
            message="No pudimos abrir esta parte de la página. Revisá tu conexión a internet y probá de nuevo."
            onRetry={() => loadInside(inside.first)}
          />
        )}
        {inside.status === 'ready' && (
          <inside.Body
            link={props.link}
            open={open}
            first={inside.first}
            onChange={props.onChange}
            onNone={none}
            payer={payer}
            receipts={payer.full ? SESSION_RECEIPTS : null}
          />
        )}
      </div>
    </section>
  );
}
