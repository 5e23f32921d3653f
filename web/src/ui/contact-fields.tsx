import { Field } from './field.js';

/** E-mail and phone, as register and profile ask for them (the phone is optional). */
export function ContactFields(props: {
  email: string;
  phone: string;
  onEmail: (value: string) => void;
  onPhone: (value: string) => void;
  errors: { email?: string | undefined; phone?: string | undefined };
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
