import { useState } from 'preact/hooks';
import { emailError, phoneError } from '../lib/validation.js';
import { Field } from './field.js';
import type { FieldErrors } from './form.js';

/**
 * The state of `<ContactFields>`, starting from `initial` (the profile's, or empty): `fields` goes
 * to the component, `check()` finds its errors, `body()` is what the API takes (trimmed; an empty
 * phone clears it on PUT /portal/perfil).
 */
export function useContact(initial: { email: string; telefono: string | null }) {
  const [email, setEmail] = useState(initial.email);
  const [phone, setPhone] = useState(initial.telefono ?? '');
  return {
    fields: { email, phone, onEmail: setEmail, onPhone: setPhone },
    check: (): FieldErrors => ({ email: emailError(email), phone: phoneError(phone) }),
    body: () => ({ email: email.trim(), telefono: phone.trim() }),
    /** Shows what the API stored. */
    reset(saved: { email: string; telefono: string | null }) {
      setEmail(saved.email);
      setPhone(saved.telefono ?? '');
    },
  };
}

/** E-mail and phone, as register and profile ask for them (the phone is optional). */
export function ContactFields(props: {
  email: string;
  phone: string;
  onEmail: (value: string) => void;
  onPhone: (value: string) => void;
  errors: FieldErrors;
  phoneHint?: string;
}) {
  return (
    <>
      <Field
        id="email"
        label="E-mail"
        type="email"
        value={props.email}
        onInput={props.onEmail}
        error={props.errors.email}
        autoComplete="email"
        inputMode="email"
        maxLength={254}
      />
      <Field
        id="phone"
        label="Teléfono"
        type="tel"
        {...(props.phoneHint !== undefined && { hint: props.phoneHint })}
        value={props.phone}
        onInput={props.onPhone}
        error={props.errors.phone}
        autoComplete="tel"
        inputMode="tel"
        required={false}
        maxLength={20}
      />
    </>
  );
}
