import { useState } from 'preact/hooks';
import { confirmationError, passwordError, passwordRules } from '../lib/validation.js';
import { Field } from './field.js';
import type { FieldErrors } from './form.js';

/**
 * The password policy, visible before it is broken; each rule says whether the typed password
 * meets it (in text, not only colour). The field points here with aria-describedby.
 */
export function PasswordPolicy(props: { id: string; password: string }) {
  return (
    <div class="policy" id={props.id}>
      <p class="hint">La contraseña debe tener:</p>
      <ul>
        {passwordRules(props.password).map((rule) => (
          <li key={rule.id} class={rule.met ? 'met' : 'unmet'}>
            <span aria-hidden="true">{rule.met ? '✓' : '•'}</span> {rule.label}
            {props.password !== '' && (
              <span class="visually-hidden">{rule.met ? ' (cumplido)' : ' (falta)'}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The state of `<NewPasswordFields>`: `fields` goes to the component, `check()` finds its errors
 * (under `password` and `confirmation`), `password` is the value to send.
 */
export function useNewPassword() {
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  return {
    password,
    confirmation,
    fields: { password, onPassword: setPassword, confirmation, onConfirmation: setConfirmation },
    check: () => ({
      password: passwordError(password),
      confirmation: confirmationError(password, confirmation),
    }),
  };
}

/**
 * A new password (with the policy visible before it is broken) and its confirmation. Errors
 * under `password` and `confirmation`; the inputs are `<idPrefix>` and `<idPrefix>-confirmation`.
 */
export function NewPasswordFields(props: {
  idPrefix: string;
  label: string;
  password: string;
  onPassword: (password: string) => void;
  confirmation: string;
  onConfirmation: (confirmation: string) => void;
  errors: FieldErrors;
  /** The confirmation's label ('Repetí la nueva contraseña' unless given). */
  confirmationLabel?: string;
}) {
  const policyId = `${props.idPrefix}-policy`;
  return (
    <>
      <Field
        id={props.idPrefix}
        label={props.label}
        type="password"
        value={props.password}
        onInput={props.onPassword}
        error={props.errors.password}
        describedBy={policyId}
        autoComplete="new-password"
        maxLength={256}
      />
      <PasswordPolicy id={policyId} password={props.password} />
      <Field
        id={`${props.idPrefix}-confirmation`}
        label={props.confirmationLabel ?? 'Repetí la nueva contraseña'}
        type="password"
        value={props.confirmation}
        onInput={props.onConfirmation}
        error={props.errors.confirmation}
        autoComplete="new-password"
        maxLength={256}
      />
    </>
  );
}
