import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError } from '../api/http.js';
import type { Tenant, PortalUser } from '../api/types.js';
import { setFlash } from '../flash.js';
import { withFullStop } from '../lib/format.js';
import { confirmationError, emailError, passwordError, phoneError } from '../lib/validation.js';
import { pathFor, type PortalLink } from '../routes.js';
import { authCall, login, publicCall } from '../session/session.js';
import { ContactFields } from '../ui/contact-fields.js';
import { useFormErrors } from '../ui/form.js';
import { IdentityFields, useIdentity } from '../ui/identity-fields.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { NewPasswordFields } from '../ui/password-policy.js';
import { ErrorBox } from '../ui/status.js';

/**
 * Registration (docs/api.md register). The API's register takes no phone, so a phone given here is
 * saved right after, through PUT /portal/perfil, once the new account has logged in.
 */
export function RegisterPage(props: { link: PortalLink; empresa: Tenant }) {
  const { link, empresa } = props;
  const who = useIdentity(link, empresa);
  const [email, setEmail] = useState('');
  const [phone, setPhone] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const { form, errors, failure, setFailure, invalid } = useFormErrors();
  const [busy, setBusy] = useState(false);
  const { route } = useLocation();

  async function submit(event: Event) {
    event.preventDefault();
    if (busy) return;
    const found = {
      ...who.check(),
      email: emailError(email),
      phone: phoneError(phone),
      password: passwordError(password),
      confirmation: confirmationError(password, confirmation),
    };
    const identity = who.identity();
    if (invalid(found) || !identity) return;
    setBusy(true);
    try {
      await publicCall<PortalUser>('/portal/auth/register', {
        method: 'POST',
        body: {
          ...identity,
          email: email.trim(),
          password,
          password_confirmation: confirmation,
        },
      });
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : 'No pudimos crear la cuenta.');
      setBusy(false);
      return;
    }
    try {
      await login({ ...identity, password });
      if (phone.trim() !== '') {
        await authCall('/portal/perfil', { method: 'PUT', body: { telefono: phone.trim() } }).catch(
          () =>
            setFlash('Creamos tu cuenta, pero no pudimos guardar el teléfono. Probá más tarde.'),
        );
      }
      route(pathFor(link, 'home'), true);
    } catch {
      setFlash('Creamos tu cuenta. Ingresá con tu documento y contraseña.');
      route(pathFor(link, 'login'), true);
    }
  }

  return (
    <Page title="Creá tu cuenta">
      <p>
        Para registrarte tenés que ser cliente de {withFullStop(empresa.nombre)} Usá el documento
        con el que te conocen.
      </p>
      <form ref={form} noValidate onSubmit={(event) => void submit(event)} class="form">
        {failure && <ErrorBox message={failure} />}
        <IdentityFields
          {...who.fields}
          errors={errors}
          hints={{ dni: '7 u 8 números, sin puntos.', cuit: '11 números, con o sin guiones.' }}
        />
        <ContactFields
          email={email}
          phone={phone}
          onEmail={setEmail}
          onPhone={setPhone}
          errors={errors}
        />
        <NewPasswordFields
          idPrefix="password"
          label="Contraseña"
          confirmationLabel="Repetí la contraseña"
          password={password}
          onPassword={setPassword}
          confirmation={confirmation}
          onConfirmation={setConfirmation}
          errors={errors}
        />
        <button type="submit" class="button" aria-disabled={busy}>
          {busy ? 'Creando la cuenta…' : 'Crear cuenta'}
        </button>
      </form>
      <p class="links">
        ¿Ya tenés cuenta? <Link href={pathFor(link, 'login')}>Ingresá</Link>
      </p>
    </Page>
  );
}
