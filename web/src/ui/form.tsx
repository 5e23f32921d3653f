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

/** The summary of a submit that found field errors. */
const CHECK_SUMMARY = 'Revisá los campos marcados.';

/**
 * A form as docs/web.md "Forms" describes it: each error under its field, a summary above
 * (`failure`, announced), focus on the first invalid field, and a submit that runs once at a time
 * (a second submit while busy is ignored). `form` goes on the `<form>` (or use `<Form>`).
 *
 * A field's error found by the submit's check follows the field afterwards (issue 38): the check
 * runs again on each render, so the error goes as soon as the field is corrected (or says what is
 * still wrong), and the summary goes with the last of them. The check must therefore be pure.
 */
export function useForm() {
  const form = useRef<HTMLFormElement>(null);
  const [found, setFound] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  /**
   * Which submit's check found `found` (its place among this form's `onSubmit` calls, a form
   * may have two steps), or null when they were given by hand (the API's).
   */
  const checkedBy = useRef<number | null>(null);
  /**
   * This render's checks, in `onSubmit` order: `onSubmit` is called in each render (after this
   * hook), and each check closes over that render's values, so the errors are read (lazily,
   * below) against the current one.
   */
  const checks = useRef<(() => FieldErrors)[]>([]);
  checks.current = [];

  /** Shows `errors` and clears the summary; answers true (and says so, focused) if any is set. */
  function invalid(errors: FieldErrors, byCheck: number | null = null): boolean {
    checkedBy.current = byCheck;
    setFound(errors);
    setFailure(null);
    if (!Object.values(errors).some(Boolean)) return false;
    setFailure(CHECK_SUMMARY);
    requestAnimationFrame(() => focusFirstInvalid(form.current));
    return true;
  }

  /** Only the fields the last submit marked are followed: the others show nothing until then. */
  function shownErrors(): FieldErrors {
    const check = checkedBy.current === null ? undefined : checks.current[checkedBy.current];
    if (!check || !Object.values(found).some(Boolean)) return found;
    const now = check();
    return Object.fromEntries(
      Object.entries(found).map(([field, error]) => [field, error ? (now[field] ?? null) : null]),
    );
  }

  /**
   * The submit handler: `check()` (pure) finds the fields' errors; when there are none, `send()`
   * runs while the form is busy. What it throws becomes the summary (`fallback` unless the API
   * said why); a `send` that wants to handle an error itself catches it. `attempt` runs first on
   * every submit, checked or not (to clear what a previous submit left on the page).
   */
  function onSubmit(
    check: () => FieldErrors,
    send: () => Promise<void>,
    fallback: string,
    attempt?: () => void,
  ) {
    const place = checks.current.push(check) - 1;
    return async (event: Event) => {
      event.preventDefault();
      if (sending.current) return;
      attempt?.();
      if (invalid(check(), place)) return;
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

  return {
    form,
    // Read when the page renders its fields, after `onSubmit` took this render's check.
    get errors(): FieldErrors {
      return shownErrors();
    },
    get failure(): string | null {
      return failure === CHECK_SUMMARY && !Object.values(shownErrors()).some(Boolean)
        ? null
        : failure;
    },
    setFailure,
    invalid: (errors: FieldErrors) => invalid(errors),
    busy,
    onSubmit,
  };
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
