import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { PublicPageProps } from '../page-props.js';
import { routes } from '../../../contract/routes.js';
import { setFlash } from '../flash.js';
import { codeDigits, codeError } from '../lib/validation.js';
import { pathFor } from '../page-paths.js';
import { clearFailedLogins, rememberSucursal } from '../portal-memory.js';
import { login, publicCall } from '../session/session.js';
import { Field } from '../ui/field.js';
import { Form, useForm } from '../ui/form.js';
import { IdentityFields, useIdentity } from '../ui/identity-fields.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { NewPasswordFields, useNewPassword } from '../ui/password-policy.js';
import { Notice } from '../ui/status.js';

/**
 * Forgot password: the identifier, then the e-mailed 6-digit code and a new password; done, the
 * customer is signed in with it (the reset answers no session, so the page logs in with what was
 * just typed) and lands home. Nothing on the way says whether an account exists before the code
 * proves it (docs/decisions.md #13).
 */
export function ForgotPage(props: PublicPageProps) {
  const { link, empresa } = props;
  const [step, setStep] = useState<'identify' | 'reset'>('identify');
  const who = useIdentity(link, empresa);
  const [code, setCode] = useState('');
  const secret = useNewPassword();
  const form = useForm();
  const { route } = useLocation();
  const codeHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (step === 'reset') codeHeading.current?.focus();
  }, [step]);

  /** The identity of the form, for both requests. */
  function identity() {
    const given = who.identity();
    if (!given) throw new Error('no sucursal');
    return given;
  }

  const requestCode = form.onSubmit(
    who.check,
    async () => {
      who.remember();
      await publicCall(routes.forgotPassword, { body: identity() });
      setStep('reset');
    },
    'No pudimos completar el pedido.',
  );

  const reset = form.onSubmit(
    () => ({ code: codeError(code), ...secret.check() }),
    async () => {
      const given = identity();
      props.prepare();
      await publicCall(routes.resetPassword, {
        body: {
          ...given,
          code: code.trim(),
          password: secret.password,
          password_confirmation: secret.confirmation,
        },
      });
      // The API cleared the lock and its count; so does this tab.
      const key = who.key();
      if (key !== null) clearFailedLogins(key);
      // Before the login: the session it starts may take this page home before it returns.
      setFlash('Cambiaste tu contraseña y ya ingresaste con la nueva.');
      try {
        await login({ ...given, password: secret.password });
      } catch {
        // Not signed in after all (no answer, a limit): the login, with the new password.
        setFlash('Cambiaste tu contraseña. Ingresá con la nueva.');
        route(pathFor(link, 'login'), true);
        return;
      }
      rememberSucursal(link.tenantId, given.sucursal_id);
      route(pathFor(link, 'home'), true);
    },
    'No pudimos completar el pedido.',
  );

  return (
    <Page title="Recuperá tu contraseña">
      {step === 'identify' ? (
        <>
          <p>Te vamos a enviar un código de 6 números al e-mail de tu cuenta.</p>
          <Form state={form} onSubmit={requestCode} submit={['Enviar código', 'Enviando…']}>
            <IdentityFields {...who.fields} errors={form.errors} />
          </Form>
        </>
      ) : (
        <>
          <h2 tabIndex={-1} ref={codeHeading}>
            Ingresá el código
          </h2>
          <Notice>
            Si los datos corresponden a una cuenta, te enviamos un código al e-mail registrado.
            Revisá también el correo no deseado; el código vence en 15 minutos.
          </Notice>
          <Form state={form} onSubmit={reset} submit={['Cambiar contraseña', 'Guardando…']}>
            <Field
              id="code"
              label="Código"
              hint="Los 6 números del e-mail."
              value={code}
              // A code pasted as the e-mail splits it ("027 792") keeps its six digits.
              onInput={(text) => setCode(codeDigits(text))}
              error={form.errors.code}
              autoComplete="one-time-code"
              inputMode="numeric"
              maxLength={32}
            />
            <NewPasswordFields
              {...secret.fields}
              idPrefix="password"
              label="Nueva contraseña"
              errors={form.errors}
            />
          </Form>
          <p>
            <button
              type="button"
              class="button secondary"
              onClick={() => {
                setStep('identify');
                form.setFailure(null);
              }}
            >
              No me llegó el código
            </button>
          </p>
        </>
      )}
      <p class="links">
        <Link href={pathFor(link, 'login')}>Volver a ingresar</Link>
      </p>
    </Page>
  );
}
