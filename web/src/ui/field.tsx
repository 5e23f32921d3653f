import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export interface FieldProps {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: 'text' | 'email' | 'tel' | 'password' | 'date';
  error?: string | null;
  /** Help shown under the label, read with the field (aria-describedby). */
  hint?: ComponentChildren;
  /** Ids of other elements that describe the field (e.g. the password policy). */
  describedBy?: string;
  autoComplete?: string;
  inputMode?: 'text' | 'numeric' | 'decimal' | 'tel' | 'email';
  required?: boolean;
  maxLength?: number;
  /** The earliest day a date field takes (`YYYY-MM-DD`). */
  min?: string;
}

/**
 * A labelled input. Its hint and its error are tied to it with aria-describedby, and an error
 * sets aria-invalid; the form's summary (role=alert) announces errors on submit.
 */
export function Field(props: FieldProps) {
  const hintId = props.hint ? `${props.id}-hint` : null;
  const errorId = props.error ? `${props.id}-error` : null;
  const describedBy = [hintId, props.describedBy, errorId].filter(Boolean).join(' ');
  const common = inputProps(props, describedBy);

  return (
    <div class={`field${props.error ? ' field-invalid' : ''}`}>
      <label for={props.id}>
        {props.label}
        {props.required === false && <span class="optional"> (opcional)</span>}
      </label>
      {props.hint && (
        <p class="hint" id={hintId ?? undefined}>
          {props.hint}
        </p>
      )}
      {props.type === 'password' ? (
        <PasswordInput {...common} />
      ) : props.type === 'email' ? (
        <input type="email" {...common} />
      ) : props.type === 'tel' ? (
        <input type="tel" {...common} />
      ) : props.type === 'date' ? (
        <input type="date" {...common} min={props.min} />
      ) : (
        <input type="text" {...common} />
      )}
      {props.error && (
        <p class="field-error" id={errorId ?? undefined}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** What every input of a Field carries, whatever its type. */
function inputProps(props: FieldProps, describedBy: string) {
  return {
    id: props.id,
    name: props.id,
    value: props.value,
    onInput: (event: Event) => {
      if (event.currentTarget instanceof HTMLInputElement) props.onInput(event.currentTarget.value);
    },
    autoComplete: props.autoComplete,
    inputMode: props.inputMode,
    required: props.required !== false,
    maxLength: props.maxLength,
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': describedBy || undefined,
  };
}

type InputProps = ReturnType<typeof inputProps>;

/**
 * A password input with "Mostrar" beside it: a toggle button (aria-pressed) that shows the
 * typed password as text, for customers typing on a phone.
 */
function PasswordInput(props: InputProps) {
  const [shown, setShown] = useState(false);
  return (
    <div class="password-input">
      {shown ? (
        <input {...props} type="text" spellcheck={false} autoCapitalize="none" />
      ) : (
        <input {...props} type="password" />
      )}
      <button
        type="button"
        class="button secondary reveal"
        aria-label="Mostrar contraseña"
        aria-pressed={shown}
        aria-controls={props.id}
        onClick={() => setShown((now) => !now)}
      >
        Mostrar
      </button>
    </div>
  );
}

/** DNI or CUIT, as radio buttons in a fieldset. */
export function IdentifierTypeField(props: {
  value: 'dni' | 'cuit';
  onChange: (value: 'dni' | 'cuit') => void;
}) {
  return (
    <fieldset class="field choice">
      <legend>Tipo de documento</legend>
      {(['dni', 'cuit'] as const).map((type) => (
        <label key={type} class="radio">
          <input
            type="radio"
            name="identifier_type"
            value={type}
            checked={props.value === type}
            onChange={() => props.onChange(type)}
          />
          {type === 'dni' ? 'DNI' : 'CUIT'}
        </label>
      ))}
    </fieldset>
  );
}

/** Focuses the first field with an error (after a submit that found some). */
export function focusFirstInvalid(form: HTMLFormElement | null): void {
  const invalid = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
  invalid?.focus();
}
