import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { forgetFragmentToken, fragmentToken } from '../fragment.js';
import { InvitationRegister } from './register-invitation.js';
import type { PublicPageProps } from '../page-props.js';
import { routes } from '../../../contract/routes.js';
import { setFlash } from '../flash.js';
import { withFullStop } from '../lib/format.js';
import { pathFor } from '../page-paths.js';
import { rememberSucursal } from '../portal-memory.js';
import { authCall, login, publicCall } from '../session/session.js';
import { ContactFields, useContact } from '../ui/contact-fields.js';
import { Form, useForm } from '../ui/form.js';
import { IdentityFields, useIdentity } from '../ui/identity-fields.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { NewPasswordFields, useNewPassword } from '../ui/password-policy.js';

/**
 * Registration (docs/api.md register). The API's register takes no phone, so a phone given here is
 * saved right after, through PUT /portal/perfil, once the new account has logged in.
 */
export function RegisterPage(props: PublicPageProps) {
  // From an invitation's address (its token taken out of the fragment by main.tsx): no DNI.
  const [invitacion, setInvitacion] = useState(() => fragmentToken('invitacion'));
  const [unusable, setUnusable] = useState(false);
  if (invitacion !== null)
    return (
      <InvitationRegister
        {...props}
        invitacion={invitacion}
        onUnusable={() => {
          forgetFragmentToken('invitacion');
          setInvitacion(null);
          setUnusable(true);
        }}
      />
    );
  return <DocumentRegister {...props} unusableInvitation={unusable} />;
}

function DocumentRegister(props: PublicPageProps & { unusableInvitation: boolean }) {
  const { link, empresa } = props;
  const who = useIdentity(link, empresa);
  const contact = useContact({ email: '', telefono: null });
  const secret = useNewPassword();
  const form = useForm();
  const { route } = useLocation();

  const submit = form.onSubmit(
    () => ({ ...who.check(), ...contact.check(), ...secret.check() }),
    async () => {
      const identity = who.identity();
      if (!identity) return;
      const { email, telefono } = contact.body();
      const password = secret.password;
      props.prepare();
      await publicCall(routes.register, {
        body: { ...identity, email, password, password_confirmation: secret.confirmation },
      });
      try {
        await login({ ...identity, password });
      } catch {
        setFlash('Creamos tu cuenta. Ingresá con tu documento y contraseña.');
        route(pathFor(link, 'login'), true);
        return;
      }
      rememberSucursal(link.tenantId, identity.sucursal_id);
      if (telefono !== '') {
        await authCall(routes.updateProfile, { body: { telefono } }).catch(() =>
          setFlash('Creamos tu cuenta, pero no pudimos guardar el teléfono. Probá más tarde.'),
        );
      }
      route(pathFor(link, 'home'), true);
    },
    'No pudimos crear la cuenta.',
  );

  return (
    <Page title="Creá tu cuenta">
      {props.unusableInvitation && (
        <div class="alert alert-error" role="alert">
          <p>
            Tu invitación ya no sirve: venció, ya se usó o fue reemplazada por otra más nueva. Podés
            crear tu cuenta con tu documento acá abajo, o{' '}
            <Link href={pathFor(link, 'login')}>ingresar</Link> si ya la tenés.
          </p>
        </div>
      )}
      <p>
        Para registrarte tenés que ser cliente de {withFullStop(empresa.nombre)} Usá el documento
        con el que te conocen.
      </p>
      <Form state={form} onSubmit={submit} submit={['Crear cuenta', 'Creando la cuenta…']}>
        <IdentityFields
          {...who.fields}
          errors={form.errors}
          hints={{ dni: '7 u 8 números, sin puntos.', cuit: '11 números, con o sin guiones.' }}
        />
        <ContactFields {...contact.fields} errors={form.errors} />
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
