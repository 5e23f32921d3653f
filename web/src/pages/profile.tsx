import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError } from '../api/http.js';
import type { Me, Profile } from '../api/types.js';
import { formatDateTime } from '../lib/format.js';
import { confirmationError, emailError, passwordError, phoneError } from '../lib/validation.js';
import { pathFor, type PortalLink } from '../routes.js';
import { authCall, passwordChanged } from '../session/session.js';
import { ContactFields } from '../ui/contact-fields.js';
import { Field } from '../ui/field.js';
import { useFormErrors } from '../ui/form.js';
import { Page } from '../ui/page.js';
import { NewPasswordFields } from '../ui/password-policy.js';
import { ErrorBox, Loading, Notice } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';

/** Profile (docs/api.md perfil): contact data, and the password change that ends the session. */
export function ProfilePage(props: { link: PortalLink; me: Me }) {
  const [state, retry] = useLoad(
    () => authCall<Profile>('/portal/perfil'),
    `profile-${props.me.portal_user_id}`,
  );
  return (
    <Page title="Tu perfil">
      {state.status === 'loading' && <Loading label="Cargando tus datos…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' && (
        <>
          <dl class="facts">
            <div>
              <dt>Nombre</dt>
              <dd>{state.data.nombre}</dd>
            </div>
            <div>
              <dt>DNI/CUIT</dt>
              <dd>{state.data.dni_cuit}</dd>
            </div>
            <div>
              <dt>Último ingreso</dt>
              <dd>{formatDateTime(state.data.last_login)}</dd>
            </div>
          </dl>
          <ContactForm perfil={state.data} />
        </>
      )}
      <PasswordForm link={props.link} />
    </Page>
  );
}

function ContactForm(props: { perfil: Profile }) {
  const [email, setEmail] = useState(props.perfil.email);
  const [phone, setPhone] = useState(props.perfil.telefono ?? '');
  const { form, errors, failure, setFailure, invalid } = useFormErrors();
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    if (busy) return;
    setSaved(null);
    if (invalid({ email: emailError(email), phone: phoneError(phone) })) return;
    setBusy(true);
    try {
      // An empty phone clears it (the API stores null).
      const perfil = await authCall<Profile>('/portal/perfil', {
        method: 'PUT',
        body: { email: email.trim(), telefono: phone.trim() },
      });
      setEmail(perfil.email);
      setPhone(perfil.telefono ?? '');
      setSaved('Guardamos tus datos de contacto.');
    } catch (error) {
      setFailure(
        error instanceof ApiError && error.code === 'VALIDATION_ERROR'
          ? 'Revisá el e-mail y el teléfono: alguno no tiene un formato válido.'
          : error instanceof ApiError
            ? error.message
            : 'No pudimos guardar tus datos.',
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="contacto-title">
      <h2 id="contacto-title">Datos de contacto</h2>
      <form ref={form} noValidate class="form" onSubmit={(event) => void submit(event)}>
        {failure && <ErrorBox message={failure} />}
        {saved && <Notice kind="success">{saved}</Notice>}
        <ContactFields
          email={email}
          phone={phone}
          onEmail={setEmail}
          onPhone={setPhone}
          errors={errors}
          phoneHint="Dejalo vacío para borrarlo."
        />
        <div>
          <button type="submit" class="button" aria-disabled={busy}>
            {busy ? 'Guardando…' : 'Guardar cambios'}
          </button>
        </div>
      </form>
    </section>
  );
}

function PasswordForm(props: { link: PortalLink }) {
  const { route } = useLocation();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const { form, errors, failure, setFailure, invalid } = useFormErrors();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    if (busy) return;
    const found = {
      current: current === '' ? 'Ingresá tu contraseña actual.' : null,
      password: passwordError(password),
      confirmation: confirmationError(password, confirmation),
    };
    if (invalid(found)) return;
    setBusy(true);
    try {
      await authCall('/portal/auth/cambiar-password', {
        method: 'PUT',
        body: { current_password: current, new_password: password },
      });
    } catch (error) {
      setBusy(false);
      if (error instanceof ApiError && error.code === 'INVALID_PASSWORD') {
        setCurrent('');
        invalid({ current: error.message });
        return;
      }
      setFailure(
        error instanceof ApiError && error.code === 'VALIDATION_ERROR'
          ? 'La contraseña nueva no cumple las reglas: al menos 8 caracteres, un número y no más de 72 bytes.'
          : error instanceof ApiError
            ? error.message
            : 'No pudimos cambiar la contraseña.',
      );
      return;
    }
    // The API ended the session (refresh token revoked, cookie cleared): every tab goes to the
    // login, this one saying why.
    passwordChanged();
    route(pathFor(props.link, 'login'), true);
  }

  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Cambiar la contraseña</h2>
      <p class="hint" id="password-note">
        Al cambiarla se cierra tu sesión, también en otras pestañas y dispositivos: vas a ingresar
        de nuevo con la contraseña nueva.
      </p>
      <form ref={form} noValidate class="form" onSubmit={(event) => void submit(event)}>
        {failure && <ErrorBox message={failure} />}
        <Field
          id="current-password"
          label="Contraseña actual"
          type="password"
          value={current}
          onInput={setCurrent}
          error={errors.current}
          autoComplete="current-password"
          maxLength={256}
        />
        <NewPasswordFields
          idPrefix="new-password"
          label="Contraseña nueva"
          password={password}
          onPassword={setPassword}
          confirmation={confirmation}
          onConfirmation={setConfirmation}
          errors={errors}
        />
        <div>
          <button
            type="submit"
            class="button"
            aria-disabled={busy}
            aria-describedby="password-note"
          >
            {busy ? 'Cambiando la contraseña…' : 'Cambiar contraseña'}
          </button>
        </div>
      </form>
    </section>
  );
}
