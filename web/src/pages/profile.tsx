import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError } from '../api/http.js';
import type { Me, Profile } from '../api/types.js';
import { formatDateTime } from '../lib/format.js';
import { pathFor, type PortalLink } from '../routes.js';
import { authCall, passwordChanged } from '../session/session.js';
import { ContactFields, useContact } from '../ui/contact-fields.js';
import { Field } from '../ui/field.js';
import { Form, FormFailure, useForm } from '../ui/form.js';
import { Page } from '../ui/page.js';
import { NewPasswordFields, useNewPassword } from '../ui/password-policy.js';
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
  const contact = useContact(props.perfil);
  const form = useForm();
  const [saved, setSaved] = useState<string | null>(null);

  const submit = form.onSubmit(
    () => {
      setSaved(null);
      return contact.check();
    },
    async () => {
      try {
        const perfil = await authCall<Profile>('/portal/perfil', {
          method: 'PUT',
          body: contact.body(),
        });
        contact.reset(perfil);
        setSaved('Guardamos tus datos de contacto.');
      } catch (error) {
        if (error instanceof ApiError && error.code === 'VALIDATION_ERROR')
          throw new FormFailure(
            'Revisá el e-mail y el teléfono: alguno no tiene un formato válido.',
          );
        throw error;
      }
    },
    'No pudimos guardar tus datos.',
  );

  return (
    <section aria-labelledby="contacto-title">
      <h2 id="contacto-title">Datos de contacto</h2>
      <Form state={form} onSubmit={submit} submit={['Guardar cambios', 'Guardando…']}>
        {saved && <Notice kind="success">{saved}</Notice>}
        <ContactFields
          {...contact.fields}
          errors={form.errors}
          phoneHint="Dejalo vacío para borrarlo."
        />
      </Form>
    </section>
  );
}

function PasswordForm(props: { link: PortalLink }) {
  const { route } = useLocation();
  const [current, setCurrent] = useState('');
  const secret = useNewPassword();
  const form = useForm();

  const submit = form.onSubmit(
    () => ({
      current: current === '' ? 'Ingresá tu contraseña actual.' : null,
      ...secret.check(),
    }),
    async () => {
      try {
        await authCall('/portal/auth/cambiar-password', {
          method: 'PUT',
          body: { current_password: current, new_password: secret.password },
        });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'INVALID_PASSWORD') {
          setCurrent('');
          form.invalid({ current: error.message });
          return;
        }
        if (error instanceof ApiError && error.code === 'VALIDATION_ERROR')
          throw new FormFailure(
            'La contraseña nueva no cumple las reglas: al menos 8 caracteres, un número y no más de 72 bytes.',
          );
        throw error;
      }
      // The API ended the session (refresh token revoked, cookie cleared): every tab goes to the
      // login, this one saying why.
      passwordChanged();
      route(pathFor(props.link, 'login'), true);
    },
    'No pudimos cambiar la contraseña.',
  );

  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Cambiar la contraseña</h2>
      <p class="hint" id="password-note">
        Al cambiarla se cierra tu sesión, también en otras pestañas y dispositivos: vas a ingresar
        de nuevo con la contraseña nueva.
      </p>
      <Form
        state={form}
        onSubmit={submit}
        submit={['Cambiar contraseña', 'Cambiando la contraseña…']}
        submitNote="password-note"
      >
        <Field
          id="current-password"
          label="Contraseña actual"
          type="password"
          value={current}
          onInput={setCurrent}
          error={form.errors.current}
          autoComplete="current-password"
          maxLength={256}
        />
        <NewPasswordFields
          {...secret.fields}
          idPrefix="new-password"
          label="Contraseña nueva"
          errors={form.errors}
        />
      </Form>
    </section>
  );
}
