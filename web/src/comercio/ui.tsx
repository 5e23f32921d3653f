/**
 * The console's shared pieces: who is using it and whose business it is (ConsoleContext), its
 * page frame (the `<h1>`, the tab's title, focus after a navigation), links inside it, and the
 * action dialog: every action asks for its reason and confirms the sentence of what it will do.
 */
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import type { Tenant } from '../api/types.js';
import { ErrorBox } from '../ui/status.js';
import type { ConsoleView } from './lib/paths.js';
import { pathOf } from './lib/paths.js';
import type { StaffClaims } from './lib/token.js';
import {
  actionButton,
  actionConsequence,
  actionSentence,
  MAX_REASON,
  reasonError,
  reasonRequired,
  type ConsoleAction,
} from './lib/words.js';

export interface ConsoleState {
  claims: StaffClaims;
  empresa: Tenant | null;
  /** `operador`: the actions show; `lectura` sees only (the API refuses them too). */
  canAct: boolean;
  navigate: (view: ConsoleView) => void;
}

export const ConsoleContext = createContext<ConsoleState | null>(null);

export function useConsole(): ConsoleState {
  const state = useContext(ConsoleContext);
  if (!state) throw new Error('useConsole outside the console');
  return state;
}

/** Whether the last view change came from the console itself (focus then moves to the `<h1>`). */
let navigated = false;
export function markNavigation(): void {
  navigated = true;
}

/** `<h1>` and the tab's title (`<page> · <empresa> · Consola`), focused after a navigation. */
export function ConsolePage(props: { title: string; children: ComponentChildren }) {
  const { empresa } = useConsole();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · ${empresa?.nombre ?? 'Consola del comercio'} · Consola`;
  }, [props.title, empresa?.nombre]);
  useLayoutEffect(() => {
    if (!navigated) return;
    navigated = false;
    heading.current?.focus();
  }, []);
  return (
    <>
      <h1 tabIndex={-1} ref={heading}>
        {props.title}
      </h1>
      {props.children}
    </>
  );
}

/** A link to a view of the console: a real address (without the token), routed in the page. */
export function ConsoleLink(props: {
  to: ConsoleView;
  children: ComponentChildren;
  class?: string;
  current?: boolean;
}) {
  const { navigate } = useConsole();
  return (
    <a
      href={pathOf(props.to)}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
          return;
        event.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}

/** What a refusal says in the console: the API's reason where it carries one. */
export function staffErrorMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return 'No pudimos completar la operación. Probá de nuevo.';
  if (error.code === 'FORBIDDEN')
    return 'Tu usuario es de solo lectura: puede ver, no actuar. Pedí el rol operador en el sistema.';
  if (error.code === 'UNAUTHORIZED') return 'Tu sesión terminó: volvé a entrar desde el sistema.';
  const detail = error.serverMessage?.trim();
  if (
    detail &&
    (error.code === 'INVALID_STATUS' ||
      error.code === 'GATEWAY_ERROR' ||
      error.code === 'USER_NOT_FOUND' ||
      error.code === 'PAYMENT_NOT_FOUND')
  )
    return `${error.message} (${detail.replace(/\.$/, '')}.)`;
  return error.message;
}

/**
 * The dialog of one action (a modal `<dialog>`: focus stays in it, Escape closes it): the
 * sentence of what it will do as its title, what follows from it, the reason ("Motivo",
 * required for devolver and acceso), the confirm button named with the verb, and the API's
 * refusal in words (`explain`'s, when it has some). `run` sends it with the reason; what it
 * answers goes to `onDone`.
 */
export function ActionDialog<T>(props: {
  action: ConsoleAction | null;
  /** Shown instead of the form while what the sentence needs loads (a payment's amount). */
  loading?: string | null;
  loadError?: string | null;
  run: (motivo: string | undefined) => Promise<T>;
  /** A refusal in this action's own words, where it has them; staffErrorMessage's otherwise. */
  explain?: (error: unknown) => string | null;
  onDone: (result: T) => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const [reason, setReason] = useState('');
  const [checked, setChecked] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const { action } = props;
  const required = action ? reasonRequired(action) : false;
  const error = checked ? reasonError(reason, required) : null;

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  useEffect(() => {
    if (action) reasonRef.current?.focus();
  }, [action !== null]);

  async function submit(event: Event) {
    event.preventDefault();
    if (!action || busy) return;
    setChecked(true);
    if (reasonError(reason, required) !== null) {
      reasonRef.current?.focus();
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const trimmed = reason.trim();
      const result = await props.run(trimmed === '' ? undefined : trimmed);
      dialog.current?.close();
      props.onDone(result);
    } catch (caught) {
      setFailure(props.explain?.(caught) ?? staffErrorMessage(caught));
      setBusy(false);
    }
  }

  const title = action ? actionSentence(action) : (props.loading ?? 'Cargando…');
  return (
    <dialog
      ref={dialog}
      class="action-dialog"
      aria-labelledby="accion-titulo"
      aria-describedby={action ? 'accion-detalle' : undefined}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
      onClose={props.onClose}
    >
      <form onSubmit={(event) => void submit(event)} noValidate>
        <h2 id="accion-titulo" class="dialog-title">
          {title}
        </h2>
        {props.loadError && <ErrorBox message={props.loadError} />}
        {action && (
          <>
            <p id="accion-detalle" class="hint">
              {actionConsequence(action)}
            </p>
            <div class={`field${error ? ' field-invalid' : ''}`}>
              <label for="accion-motivo">
                Motivo
                {!required && <span class="optional"> (opcional)</span>}
              </label>
              <p class="hint" id="accion-motivo-hint">
                Queda en la auditoría con tu nombre. Hasta {MAX_REASON} caracteres.
              </p>
              <textarea
                id="accion-motivo"
                ref={reasonRef}
                rows={3}
                maxLength={MAX_REASON}
                value={reason}
                required={required}
                aria-invalid={error ? 'true' : undefined}
                aria-describedby={`accion-motivo-hint${error ? ' accion-motivo-error' : ''}`}
                onInput={(event) => setReason(event.currentTarget.value)}
              />
              {error && (
                <p class="field-error" id="accion-motivo-error">
                  {error}
                </p>
              )}
            </div>
            {failure && <ErrorBox message={failure} />}
          </>
        )}
        <div class="actions">
          {action && (
            <button
              type="submit"
              class={
                action.kind === 'devolver' || (action.kind === 'acceso' && !action.habilitado)
                  ? 'button danger'
                  : 'button'
              }
              aria-disabled={busy ? 'true' : undefined}
            >
              {busy ? 'Procesando…' : actionButton(action)}
            </button>
          )}
          <button
            type="button"
            class="button secondary"
            aria-disabled={busy ? 'true' : undefined}
            onClick={() => !busy && dialog.current?.close()}
          >
            Cancelar
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * A list's column names, as every console table writes them (the roles kept for the phone
 * layout, where the table is shown as cards); those in `numeric` are aligned as figures.
 */
export function ColumnHeads(props: { names: readonly string[]; numeric?: readonly string[] }) {
  return (
    <thead role="rowgroup">
      <tr role="row">
        {props.names.map((name) => (
          <th
            key={name}
            scope="col"
            role="columnheader"
            class={props.numeric?.includes(name) ? 'num' : undefined}
          >
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** A cell of a list's table with its column's name before it on a phone (hidden from readers). */
export function Cell(props: { label: string; children: ComponentChildren; class?: string }) {
  return (
    <td class={props.class} role="cell">
      <span class="cell-label" aria-hidden="true">
        {props.label}
      </span>
      {props.children}
    </td>
  );
}
