import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import { focusFirstInvalid } from './field.js';
import { ErrorBox } from './status.js';

/** Each field's error (null when it is fine), keyed as the form's `<Field error>` reads them. */
export type FieldErrors = Record<string, string | null>;

/** What a form's `send` throws to have its own words shown as the summary. */
export class FormFailure extends Error {}

/** The Spanish message of what a call threw: the API's or the form's, else `fallback`. */
export function failureOf(error: unknown, fallback: string): string {
  return error instanceof ApiError || error instanceof FormFailure ? error.message : fallback;
}

/**
 * A form as docs/web.md "Forms" describes it: each error under its field, a summary above
 * (`failure`, announced), focus on the first invalid field, and a submit that runs once at a time
 * (a second submit while busy is ignored). `form` goes on the `<form>` (or use `<Form>`).
 */
export function useForm() {
  const form = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);

  /** Shows `found` and clears the summary; answers true (and says so, focused) if any is set. */
  function invalid(found: FieldErrors): boolean {
    setErrors(found);
    setFailure(null);
    if (!Object.values(found).some(Boolean)) return false;
    setFailure('Revisá los campos marcados.');
    requestAnimationFrame(() => focusFirstInvalid(form.current));
    return true;
  }

  /**
   * The submit handler: `check()` finds the fields' errors; when there are none, `send()` runs
   * while the form is busy. What it throws becomes the summary (`fallback` unless the API said
   * why); a `send` that wants to handle an error itself catches it.
   */
  function onSubmit(check: () => FieldErrors, send: () => Promise<void>, fallback: string) {
    return async (event: Event) => {
      event.preventDefault();
      if (sending.current || invalid(check())) return;
      sending.current = true;
      setBusy(true);
      try {
        await send();
      } catch (error) {
        setFailure(failureOf(error, fallback));
      } finally {
        sending.current = false;
        setBusy(false);
      }
    };
  }

  return { form, errors, failure, setFailure, invalid, busy, onSubmit };
}

export type FormState = ReturnType<typeof useForm>;

/**
 * A `noValidate` form with its summary first and its submit button last; the button stays
 * focusable while busy (aria-disabled) and says what is happening.
 */
export function Form(props: {
  state: FormState;
  onSubmit: (event: Event) => Promise<void>;
  /** The button's label, and its label while busy. */
  submit: readonly [string, string];
  /** Id of a note the button points to (aria-describedby). */
  submitNote?: string;
  class?: string;
  children: ComponentChildren;
}) {
  const { state } = props;
  return (
    <form
      ref={state.form}
      noValidate
      class={props.class ?? 'form'}
      onSubmit={(event) => void props.onSubmit(event)}
    >
      {state.failure && <ErrorBox message={state.failure} />}
      {props.children}
      <button
        type="submit"
        class="button"
        aria-disabled={state.busy}
        aria-describedby={props.submitNote}
      >
        {state.busy ? props.submit[1] : props.submit[0]}
      </button>
    </form>
  );
}
