/**
 * Registering from an invitation (`/e/{tenant}/registro#invitacion=<token>`, docs/pay-links.md
 * "Invitations"): the token left the address in main.tsx (fragment.ts); the page reads whom it
 * invites (POST /portal/auth/invitacion: name, e-mail, sucursal), greets them and asks only an
 * e-mail (the invited one, editable) and a password twice, then registers with the invitation
 * instead of a DNI. An invitation that does not work shows the normal registration and the login;
 * one of another business than the address's is refused, nothing of it shown.
 */
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { routes } from '../../../contract/routes.js';
import { failedWith } from '../api/route-call.js';
import { setFlash } from '../flash.js';
import { firstName, ownerFits } from '../lib/link-token.js';
import { emailError } from '../lib/validation.js';
import type { PublicPageProps } from '../page-props.js';
import { pathFor } from '../page-paths.js';
import { publicCall } from '../session/session.js';
import { Field } from '../ui/field.js';
import { Form, useForm } from '../ui/form.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { NewPasswordFields, useNewPassword } from '../ui/password-policy.js';
import { ErrorBox, Loading } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';
import { ForgedLink } from './misc.js';

export function InvitationRegister(
  props: PublicPageProps & { invitacion: string; onUnusable: () => void },
) {
  const { link, invitacion } = props;
  const [state, retry] = useLoad(
    () =>
      publicCall(routes.readInvitation, { body: { invitacion } }).then(
        (data) => data,
        (error: unknown) => {
          if (failedWith(error, routes.readInvitation, 'INVALID_INVITATION')) return null;
          throw error;
        },
      ),
    `invitation-${invitacion}`,
    // Read once: what it says does not change while the form is filled in.
    { again: false },
  );
  if (state.status === 'loading')
    return (
      <Page title="Tu invitación">
        <Loading label="Leyendo tu invitación…" />
      </Page>
    );
  if (state.status === 'error')
    return (
      <Page title="Tu invitación">
        <ErrorBox message={state.message} onRetry={retry} />
      </Page>
    );
  const invited = state.data;
  if (invited === null) return <Unusable onUnusable={props.onUnusable} />;
  if (!ownerFits({ tenantId: invited.tenant_id, sucursalId: invited.sucursal_id }, link))
    return <ForgedLink what="enlace de invitación" />;
  return (
    <InvitedForm {...props} invitacion={invitacion} nombre={invited.nombre} email={invited.email} />
  );
}

function InvitedForm(
  props: PublicPageProps & {
    invitacion: string;
    nombre: string;
    email: string;
    onUnusable: () => void;
  },
) {
  const { link, empresa } = props;
  const [email, setEmail] = useState(props.email);
  const [spent, setSpent] = useState(false);
  const secret = useNewPassword();
  const form = useForm();
  const { route } = useLocation();
  const nombre = firstName(props.nombre);

  const submit = form.onSubmit(
    () => ({ email: emailError(email), ...secret.check() }),
    async () => {
      try {
        await publicCall(routes.register, {
          body: {
            invitacion: props.invitacion,
            email: email.trim(),
            password: secret.password,
            password_confirmation: secret.confirmation,
          },
        });
      } catch (error) {
        if (failedWith(error, routes.register, 'INVALID_INVITATION')) {
          setSpent(true);
          return;
        }
        throw error;
      }
      setFlash('Creamos tu cuenta. Ingresá con tu DNI o CUIT y la contraseña que elegiste.');
      route(pathFor(link, 'login'), true);
    },
    'No pudimos crear la cuenta.',
  );

  if (spent) return <Unusable onUnusable={props.onUnusable} />;
  return (
    <Page title="Creá tu cuenta">
      <p>
        Hola{nombre ? `, ${nombre}` : ''}: {empresa.nombre} te invita a su portal de clientes. Elegí
        una contraseña y listo: vas a poder ver tus facturas y pagarlas.
      </p>
      <Form state={form} onSubmit={submit} submit={['Crear cuenta', 'Creando la cuenta…']}>
        <Field
          id="email"
          label="E-mail"
          type="email"
          hint="Te escribimos a esta dirección; podés usar otra."
          value={email}
          onInput={setEmail}
          error={form.errors.email}
          autoComplete="email"
          inputMode="email"
          maxLength={254}
        />
        <NewPasswordFields
          {...secret.fields}
          idPrefix="password"
          label="Contraseña"
          confirmationLabel="Repetí la contraseña"
          errors={form.errors}
        />
      </Form>
      <p class="links">
        ¿Ya tenés cuenta? <Link href={pathFor(link, 'login')}>Ingresá</Link>
      </p>
    </Page>
  );
}

/** The invitation does not work: the page turns into the normal registration, which says so. */
function Unusable(props: { onUnusable: () => void }) {
  const { onUnusable } = props;
  useEffect(() => onUnusable(), []);
  return <Loading />;
}
