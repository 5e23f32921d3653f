import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError } from '../api/http.js';
import type { Tenant } from '../api/types.js';
import { takeFlash } from '../flash.js';
import { pathFor, safeNext, type PortalLink } from '../routes.js';
import { getSession, login } from '../session/session.js';
import { Field } from '../ui/field.js';
import { useFormErrors } from '../ui/form.js';
import { IDENTIFIER_HINTS, IdentityFields, useIdentity } from '../ui/identity-fields.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { ErrorBox, Notice } from '../ui/status.js';

export function LoginPage(props: { link: PortalLink; empresa: Tenant; next: string | null }) {
  const { link, empresa } = props;
  const [notice] = useState(() => {
    const flash = takeFlash();
    if (flash) return flash;
    const session = getSession();
    if (session.status === 'anonymous' && session.reason === 'expired')
      return 'Tu sesión terminó. Ingresá de nuevo.';
    if (session.status === 'anonymous' && session.reason === 'logout') return 'Cerraste la sesión.';
    if (session.status === 'anonymous' && session.reason === 'password')
      return 'Cambiaste tu contraseña. Ingresá con la nueva.';
    return null;
  });
  const who = useIdentity(link, empresa);
  const [password, setPassword] = useState('');
  const { form, errors, failure, setFailure, invalid } = useFormErrors();
  const [busy, setBusy] = useState(false);
  const { route } = useLocation();

  async function submit(event: Event) {
    event.preventDefault();
    if (busy) return;
    const found = { ...who.check(), password: password === '' ? 'Ingresá tu contraseña.' : null };
    const identity = who.identity();
    if (invalid(found) || !identity) return;
    setBusy(true);
    try {
      await login({ ...identity, password });
      route(safeNext(props.next) ?? pathFor(link, 'home'), true);
    } catch (error) {
      setFailure(
        error instanceof ApiError ? error.message : 'No pudimos ingresar. Probá de nuevo.',
      );
      setPassword('');
      setBusy(false);
    }
  }

  return (
    <Page title="Ingresá a tu cuenta">
      {notice && <Notice>{notice}</Notice>}
      <form ref={form} noValidate onSubmit={(event) => void submit(event)} class="form">
        {failure && <ErrorBox message={failure} />}
        <IdentityFields {...who.fields} errors={errors} hints={IDENTIFIER_HINTS} />
        <Field
          id="password"
          label="Contraseña"
          type="password"
          value={password}
          onInput={setPassword}
          error={errors.password}
          autoComplete="current-password"
          maxLength={256}
        />
        <button type="submit" class="button" aria-disabled={busy}>
          {busy ? 'Ingresando…' : 'Ingresar'}
        </button>
      </form>
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
