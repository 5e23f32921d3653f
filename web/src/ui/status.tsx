import type { ComponentChildren } from 'preact';

/** Loading, announced politely. */
export function Loading(props: { label?: string }) {
  return (
    <p class="status" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? 'Cargando…'}
    </p>
  );
}

/** An error message, announced at once (role=alert), with an optional retry. */
export function ErrorBox(props: {
  /** Text, or text with a link in it. */
  message: ComponentChildren;
  onRetry?: (() => void) | undefined;
  retryLabel?: string;
  id?: string;
}) {
  return (
    <div class="alert alert-error" role="alert" id={props.id}>
      <p>{props.message}</p>
      {props.onRetry && (
        <button type="button" class="button secondary" onClick={props.onRetry}>
          {props.retryLabel ?? 'Reintentar'}
        </button>
      )}
    </div>
  );
}

/** An information or success notice, announced politely. */
export function Notice(props: { kind?: 'info' | 'success'; children: ComponentChildren }) {
  return (
    <div class={`alert alert-${props.kind ?? 'info'}`} role="status">
      {props.children}
    </div>
  );
}

/** "Estás al día" (good news, the default) or a neutral "nothing here yet". */
export function Empty(props: {
  title: string;
  tone?: 'good' | 'neutral';
  children?: ComponentChildren;
}) {
  return (
    <div class={props.tone === 'neutral' ? 'empty empty-neutral' : 'empty'}>
      <p class="empty-title">{props.title}</p>
      {props.children}
    </div>
  );
}
