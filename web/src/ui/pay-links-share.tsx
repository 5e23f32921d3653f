/**
 * "Compartir un enlace de pago" (profile page; docs/pay-links.md): the customer makes a link
 * that lets whoever holds it pay the account's debts and nothing else (POST /portal/enlaces,
 * reason `cliente`), copies it or shares it (Web Share where the phone has it), sees the live
 * links with when they expire (GET /portal/enlaces) and revokes any (DELETE, confirmed). A
 * business with pay links off answers 409 CONFLICT: said once, the feature hidden.
 */
import { useRef, useState } from 'preact/hooks';
import { routes } from '../../../contract/routes.js';
import { ApiError } from '../api/http.js';
import { failedWith } from '../api/route-call.js';
import { formatDateTime } from '../lib/format.js';
import { authCall } from '../session/session.js';
import { useEmpresa } from './brand.js';
import { ConfirmStep } from './confirm.js';
import { ErrorBox, Notice } from './status.js';
import { useLoad } from './use-load.js';

const REASONS = {
  aviso: 'de un aviso de vencimiento',
  cliente: 'compartido por vos',
  comercio: 'de la empresa',
} as const;

export function SharePayLinks() {
  const empresa = useEmpresa();
  const zone = empresa?.zona_horaria;
  const [round, setRound] = useState(0);
  const [off, setOff] = useState(false);
  const [made, setMade] = useState<{ url: string; vence: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [list, retry] = useLoad(() => authCall(routes.listPayLinks), `pay-links-${round}`);

  async function create() {
    if (busy) return;
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const link = await authCall(routes.createPayLink);
      setMade({ url: link.url, vence: link.vence });
      setRound((n) => n + 1);
    } catch (e) {
      if (failedWith(e, routes.createPayLink, 'CONFLICT')) setOff(true);
      else setError(e instanceof ApiError ? e.message : 'No pudimos crear el enlace.');
    } finally {
      setBusy(false);
    }
  }

  if (off)
    return (
      <section aria-labelledby="enlaces-title">
        <h2 id="enlaces-title">Compartir un enlace de pago</h2>
        <Notice>
          <p>{empresa?.nombre ?? 'La empresa'} no tiene habilitados los enlaces de pago.</p>
        </Notice>
      </section>
    );
  return (
    <section aria-labelledby="enlaces-title">
      <h2 id="enlaces-title">Compartir un enlace de pago</h2>
      <p>
        Para que otra persona (quien paga las cuentas de tu empresa, un familiar) pague tus facturas
        sin tu contraseña: el enlace sólo permite ver lo que debés y pagarlo.
      </p>
      {made ? (
        <MadeLink url={made.url} vence={formatDateTime(made.vence, zone)} />
      ) : (
        <p>
          <button
            type="button"
            class="button secondary"
            aria-disabled={busy}
            onClick={() => void create()}
          >
            {busy ? 'Creando el enlace…' : 'Crear un enlace de pago'}
          </button>
        </p>
      )}
      {error && <ErrorBox message={error} />}
      {done && (
        <Notice kind="success">
          <p>{done}</p>
        </Notice>
      )}
      <h3>Enlaces vigentes</h3>
      {list.status === 'error' && <ErrorBox message={list.message} onRetry={retry} />}
      {list.status === 'ready' &&
        (list.data.items.length === 0 ? (
          <p>No tenés enlaces de pago vigentes.</p>
        ) : (
          <ul class="pay-links">
            {list.data.items.map((item) => (
              <LiveLink
                key={item.id}
                id={item.id}
                what={`Enlace ${REASONS[item.motivo]}, vence el ${formatDateTime(item.vence, zone)}`}
                used={item.usos}
                onRevoked={() => {
                  setDone('Anulamos el enlace: ya no sirve para pagar.');
                  if (made) setMade(null);
                  setRound((n) => n + 1);
                }}
              />
            ))}
          </ul>
        ))}
    </section>
  );
}

/** The link just made: shown once (the API keeps only its hash), copied or shared. */
function MadeLink(props: { url: string; vence: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const canShare = typeof navigator.share === 'function';
  async function copy() {
    try {
      await navigator.clipboard.writeText(props.url);
      setCopied('Copiamos el enlace.');
    } catch {
      field.current?.select();
      setCopied('Seleccionamos el enlace: copialo desde el campo.');
    }
  }
  async function share() {
    try {
      await navigator.share({ title: 'Enlace de pago', url: props.url });
    } catch {
      // Closed without sharing: nothing to say.
    }
  }
  return (
    <div class="made-link">
      <label for="enlace-nuevo">Tu enlace de pago (vence el {props.vence})</label>
      <input
        id="enlace-nuevo"
        ref={field}
        type="text"
        readOnly
        value={props.url}
        aria-describedby="enlace-nuevo-hint"
      />
      <p id="enlace-nuevo-hint" class="hint">
        Guardalo ahora: por seguridad no lo volvemos a mostrar. Quien lo tenga puede pagar tus
        facturas hasta que venza o lo anules.
      </p>
      <div class="actions">
        <button type="button" class="button" onClick={() => void copy()}>
          Copiar enlace
        </button>
        {canShare && (
          <button type="button" class="button secondary" onClick={() => void share()}>
            Compartir enlace
          </button>
        )}
      </div>
      <p aria-live="polite" class="hint">
        {copied}
      </p>
    </div>
  );
}

function LiveLink(props: { id: number; what: string; used: number; onRevoked: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const nameId = `enlace-${props.id}`;
  async function revoke() {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await authCall(routes.revokePayLink, { params: { id: String(props.id) } });
      props.onRevoked();
    } catch (e) {
      setBusy(false);
      setConfirming(false);
      // Gone meanwhile (expired, revoked elsewhere): the list read again says so.
      if (failedWith(e, routes.revokePayLink, 'NOT_FOUND')) props.onRevoked();
      else {
        setError(e instanceof ApiError ? e.message : 'No pudimos anular el enlace.');
        requestAnimationFrame(() => trigger.current?.focus());
      }
    }
  }
  return (
    <li>
      <p id={nameId}>
        {props.what}.{' '}
        {props.used === 0
          ? 'Todavía no se usó.'
          : `Se usó ${props.used === 1 ? '1 vez' : `${props.used} veces`}.`}
      </p>
      {error && <ErrorBox message={error} />}
      {confirming ? (
        <ConfirmStep
          id={`anular-${props.id}`}
          question="¿Anular este enlace de pago?"
          confirmLabel="Sí, anular el enlace"
          cancelLabel="No, volver"
          busy={busy}
          onConfirm={() => void revoke()}
          onCancel={() => {
            setConfirming(false);
            requestAnimationFrame(() => trigger.current?.focus());
          }}
        >
          <p>Quien lo tenga ya no podrá pagar con él.</p>
        </ConfirmStep>
      ) : (
        <button
          type="button"
          class="button secondary compact"
          ref={trigger}
          aria-describedby={nameId}
          onClick={() => setConfirming(true)}
        >
          Anular enlace
        </button>
      )}
    </li>
  );
}
