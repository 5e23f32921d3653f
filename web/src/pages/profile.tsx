import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError } from '../api/http.js';
import { failedWith } from '../api/route-call.js';
import type { Me, Profile } from '../api/types.js';
import { formatDateTime } from '../lib/format.js';
import { reminderStages } from '../lib/reminders.js';
import { pageHeading, pathFor, type PortalLink } from '../page-paths.js';
import { authCall, passwordChanged } from '../session/session.js';
import { ContactFields, useContact } from '../ui/contact-fields.js';
import { Field } from '../ui/field.js';
import { Form, FormFailure, useForm } from '../ui/form.js';
import { useEmpresa } from '../ui/brand.js';
import { Page } from '../ui/page.js';
import { SharePayLinks } from '../ui/pay-links-share.js';
import { NewPasswordFields, useNewPassword } from '../ui/password-policy.js';
import { ErrorBox, Loading, Notice } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';
import { routes } from '../../../contract/routes.js';

/**
 * Profile (docs/api.md perfil): contact data, the due-date reminders switch, sharing a pay link
 * (ui/pay-links-share.tsx), and the password change that ends the session.
 */
export function ProfilePage(props: { link: PortalLink; me: Me }) {
  const [state, retry] = useLoad(
    () => authCall(routes.getProfile),
    `profile-${props.me.portal_user_id}`,
  );
  const empresa = useEmpresa();
  const zone = empresa?.zona_horaria;
  return (
    <Page title={pageHeading('profile', props.me.nombre)}>
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
              {/* The login before this one: `last_login` is the one just made (issue 38). */}
              <dd>
                {props.me.ingreso_anterior
                  ? formatDateTime(props.me.ingreso_anterior, zone)
                  : 'Este es tu primer ingreso.'}
              </dd>
            </div>
          </dl>
          <ContactForm perfil={state.data} />
          {/* Only a business that sends reminders gets a switch that promises them. */}
          {empresa?.avisos_habilitados && (
            <RemindersSwitch
              initial={state.data.avisos_vencimiento}
              stages={reminderStages(empresa.avisos_etapas)}
            />
          )}
          <SharePayLinks />
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
    () => contact.check(),
    async () => {
      try {
        const perfil = await authCall(routes.updateProfile, { body: contact.body() });
        contact.reset(perfil);
        setSaved('Guardamos tus datos de contacto.');
      } catch (error) {
        if (failedWith(error, routes.updateProfile, 'VALIDATION_ERROR'))
          throw new FormFailure(
            'Revisá el e-mail y el teléfono: alguno no tiene un formato válido.',
          );
        throw error;
      }
    },
    'No pudimos guardar tus datos.',
    () => setSaved(null),
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

type SwitchStatus = { kind: 'saved' | 'failed'; text: string } | null;

/**
 * The due-date reminders (docs/reminders.md), on or off: saved the moment it is switched, alone
 * (`{ avisos_vencimiento }`), so the contact form's unsaved edits beside it are neither sent nor
 * lost. A failure puts the switch back where the API still has it.
 */
function RemindersSwitch(props: { initial: boolean; stages: string }) {
  const when = props.stages ? ` ${props.stages} de cada vencimiento` : ' cerca de cada vencimiento';
  const [on, setOn] = useState(props.initial);
  const [status, setStatus] = useState<SwitchStatus>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);

  async function change(next: boolean) {
    sending.current = true;
    setBusy(true);
    setOn(next);
    setStatus(null);
    try {
      const perfil = await authCall(routes.updateProfile, { body: { avisos_vencimiento: next } });
      setOn(perfil.avisos_vencimiento);
      setStatus({
        kind: 'saved',
        text: perfil.avisos_vencimiento
          ? `Listo: te vamos a avisar por e-mail${when}.`
          : 'Listo: ya no te vamos a enviar avisos de vencimiento.',
      });
    } catch (error) {
      setOn(!next);
      const why = error instanceof ApiError ? ` ${error.message}` : ' Probá de nuevo.';
      setStatus({ kind: 'failed', text: `No pudimos guardar el cambio.${why}` });
    } finally {
      sending.current = false;
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="avisos-title">
      <h2 id="avisos-title">Avisos de vencimiento</h2>
      <div class="switch">
        <input
          type="checkbox"
          role="switch"
          id="avisos"
          checked={on}
          aria-describedby="avisos-hint"
          aria-busy={busy}
          onChange={(event) => {
            const box = event.currentTarget;
            // One change at a time: a click while saving is put back, not queued.
            if (sending.current) box.checked = on;
            else void change(box.checked);
          }}
        />
        <label for="avisos">Avisarme por e-mail antes de cada vencimiento</label>
      </div>
      <p class="hint switch-hint" id="avisos-hint">
        Te escribimos a tu e-mail{when}, mientras la factura siga sin pagarse.
      </p>
      {busy && <Loading label="Guardando…" />}
      {status?.kind === 'saved' && <Notice kind="success">{status.text}</Notice>}
      {status?.kind === 'failed' && <ErrorBox message={status.text} />}
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
        await authCall(routes.changePassword, {
          body: { current_password: current, new_password: secret.password },
        });
      } catch (error) {
        if (
          error instanceof ApiError &&
          failedWith(error, routes.changePassword, 'INVALID_PASSWORD')
        ) {
          setCurrent('');
          form.invalid({ current: error.message });
          return;
        }
        if (failedWith(error, routes.changePassword, 'VALIDATION_ERROR'))
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
