import { useRef, useState } from 'preact/hooks';
import { focusFirstInvalid } from './field.js';

/** Each field's error (null when it is fine), keyed as the form's `<Field error>` reads them. */
export type FieldErrors = Record<string, string | null>;

/**
 * A form's errors as docs/web.md 'Forms' shows them: each under its field, a summary above
 * (`failure`, for an `<ErrorBox>`), focus on the first invalid field. `form` goes on the `<form>`.
 */
export function useFormErrors() {
  const form = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);

  /** Shows `found` and clears the summary; answers true (and says so, focused) if any is set. */
  function invalid(found: FieldErrors): boolean {
    setErrors(found);
    setFailure(null);
    if (!Object.values(found).some(Boolean)) return false;
    setFailure('Revisá los campos marcados.');
    requestAnimationFrame(() => focusFirstInvalid(form.current));
    return true;
  }

  return { form, errors, failure, setFailure, invalid };
}
