import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * An inline confirmation step (not a modal, so nothing to trap): the question and what follows
 * from it, "yes" and "no". Focus moves to "no" (the safe answer) when it appears, and the group's
 * label and description are read with it; Escape answers "no". The caller puts focus back on
 * the button that opened it.
 */
export function ConfirmStep(props: {
  id: string;
  question: string;
  children?: ComponentChildren;
  confirmLabel: string;
  cancelLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const safe = useRef<HTMLButtonElement>(null);
  useEffect(() => safe.current?.focus(), []);
  return (
    <div
      class="confirm"
      role="group"
      aria-labelledby={`${props.id}-q`}
      aria-describedby={props.children ? `${props.id}-d` : undefined}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !props.busy) {
          event.preventDefault();
          props.onCancel();
        }
      }}
    >
      <p id={`${props.id}-q`} class="confirm-question">
        {props.question}
      </p>
      {props.children && (
        <div id={`${props.id}-d`} class="confirm-detail">
          {props.children}
        </div>
      )}
      <div class="actions">
        <button
          type="button"
          class="button danger"
          aria-disabled={props.busy}
          onClick={() => !props.busy && props.onConfirm()}
        >
          {props.busy ? 'Procesando…' : props.confirmLabel}
        </button>
        <button
          type="button"
          class="button secondary"
          ref={safe}
          aria-disabled={props.busy}
          onClick={() => !props.busy && props.onCancel()}
        >
          {props.cancelLabel}
        </button>
      </div>
    </div>
  );
}
