import type { Ref } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { formatDateTime } from '../../lib/format.js';
import { PAY_LINK_WARNING } from '../lib/words.js';

/**
 * A pay link just made from Clientes (issue 45): its address in a read-only field to copy, when
 * it expires on the tenant's clock, and what it lets its holder do. Shown once: the API keeps
 * only its hash.
 */
export function ClientPayLink(props: {
  cliente: string;
  url: string;
  vence: string;
  timeZone: string | undefined;
  panel: Ref<HTMLElement>;
  onClose: () => void;
}) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');

  async function copy() {
    try {
      await navigator.clipboard.writeText(props.url);
      setCopied('Copiamos el enlace.');
    } catch {
      // No clipboard (a browser that refuses it): the address selected, to copy by hand.
      field.current?.focus();
      field.current?.select();
      setCopied('No pudimos copiarlo: el enlace quedó seleccionado, copialo con Ctrl+C.');
    }
  }

  return (
    <section
      ref={props.panel}
      tabIndex={-1}
      class="card pay-link-made"
      aria-labelledby="enlace-titulo"
    >
      <h2 id="enlace-titulo">Enlace de pago de {props.cliente}</h2>
      <div class="field">
        <label for="enlace-url">Enlace</label>
        <input
          id="enlace-url"
          ref={field}
          type="text"
          readOnly
          value={props.url}
          aria-describedby="enlace-vence enlace-aviso"
          onFocus={(event) => event.currentTarget.select()}
        />
        <p class="hint" id="enlace-vence">
          Vence el {formatDateTime(props.vence, props.timeZone)}.
        </p>
      </div>
      <p id="enlace-aviso">{PAY_LINK_WARNING} No lo volvemos a mostrar: copialo ahora.</p>
      <div class="actions">
        <button type="button" class="button" onClick={() => void copy()}>
          Copiar
        </button>
        <button type="button" class="button secondary" onClick={props.onClose}>
          Cerrar
        </button>
      </div>
      <p class="hint" role="status">
        {copied}
      </p>
    </section>
  );
}
