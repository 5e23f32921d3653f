import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { PublicPageProps } from '../page-props.js';
import { takeFlash } from '../flash.js';
import { pathFor, safeNext } from '../routes.js';
import { getSession, login } from '../session/session.js';
import { Field } from '../ui/field.js';
import { Form, useForm } from '../ui/form.js';
import { IDENTIFIER_HINTS, IdentityFields, useIdentity } from '../ui/identity-fields.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { Notice } from '../ui/status.js';

/** Why the customer is back at the login, said once (a flash, or how the session ended). */
function arrivalNotice(): string | null {
  const flash = takeFlash();
  if (flash) return flash;
  const session = getSession();
  if (session.status !== 'anonymous') return null;
  // The API's own words when it said why (another login, a logout elsewhere, a new password).
  if (session.reason === 'expired')
    return session.message ?? 'Tu sesión terminó. Ingresá de nuevo.';
  if (session.reason === 'logout') return 'Cerraste la sesión.';
  if (session.reason === 'password') return 'Cambiaste tu contraseña. Ingresá con la nueva.';
  return null;
}

export function LoginPage(props: PublicPageProps) {
  const { link, empresa } = props;
  const [notice] = useState(arrivalNotice);
  const who = useIdentity(link, empresa);
  const [password, setPassword] = useState('');
  const form = useForm();
  const { route } = useLocation();

  const submit = form.onSubmit(
    () => ({ ...who.check(), password: password === '' ? 'Ingresá tu contraseña.' : null }),
    async () => {
      const identity = who.identity();
      if (!identity) return;
      who.remember();
      try {
        await login({ ...identity, password });
      } catch (error) {
        setPassword('');
        throw error;
      }
      route(safeNext(props.next) ?? pathFor(link, 'home'), true);
    },
    'No pudimos ingresar. Probá de nuevo.',
  );

  return (
    <Page title="Ingresá a tu cuenta">
      {notice && <Notice>{notice}</Notice>}
      <Form state={form} onSubmit={submit} submit={['Ingresar', 'Ingresando…']}>
        <IdentityFields {...who.fields} errors={form.errors} hints={IDENTIFIER_HINTS} />
        <Field
          id="password"
          label="Contraseña"
          type="password"
          value={password}
          onInput={setPassword}
          error={form.errors.password}
          autoComplete="current-password"
          maxLength={256}
        />
      </Form>
      <ul class="links">
        <li>
          <Link href={pathFor(link, 'forgot')}>Olvidé mi contraseña</Link>
        </li>
        <li>
          ¿Primera vez? <Link href={pathFor(link, 'register')}>Creá tu cuenta</Link>
        </li>
      </ul>
    </Page>
  );
}
