import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError } from '../api/http.js';
import type { Tenant, MessageData } from '../api/types.js';
import { setFlash } from '../flash.js';
import { codeError, confirmationError, passwordError } from '../lib/validation.js';
import { pathFor, type PortalLink } from '../routes.js';
import { publicCall } from '../session/session.js';
import { Field } from '../ui/field.js';
import { useFormErrors } from '../ui/form.js';
import { IdentityFields, useIdentity } from '../ui/identity-fields.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { NewPasswordFields } from '../ui/password-policy.js';
import { ErrorBox, Notice } from '../ui/status.js';

/** Forgot password: the identifier, then the e-mailed 6-digit code and a new password. */
export function ForgotPage(props: { link: PortalLink; empresa: Tenant }) {
  const { link, empresa } = props;
  const [step, setStep] = useState<'identify' | 'reset'>('identify');
  const who = useIdentity(link, empresa);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const { form, errors, failure, setFailure, invalid } = useFormErrors();
  const [busy, setBusy] = useState(false);
  const { route } = useLocation();
  const codeHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (step === 'reset') codeHeading.current?.focus();
  }, [step]);

  async function send<T>(path: string, body: Record<string, unknown>): Promise<T | null> {
    const identity = who.identity();
    if (!identity) return null;
    setBusy(true);
    try {
      return await publicCall<T>(path, { method: 'POST', body: { ...identity, ...body } });
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : 'No pudimos completar el pedido.');
      return null;
    } finally {
      setBusy(false);
    }
  }

  async function requestCode(event: Event) {
    event.preventDefault();
    if (busy) return;
    if (invalid(who.check())) return;
    const answer = await send<MessageData>('/portal/auth/forgot-password', {});
    if (answer) setStep('reset');
  }

  async function reset(event: Event) {
    event.preventDefault();
    if (busy) return;
    const found = {
      code: codeError(code),
      password: passwordError(password),
      confirmation: confirmationError(password, confirmation),
    };
    if (invalid(found)) return;
    const answer = await send<MessageData>('/portal/auth/reset-password', {
      code: code.trim(),
      password,
      password_confirmation: confirmation,
    });
    if (answer) {
      setFlash('Cambiaste tu contraseña. Ingresá con la nueva.');
      route(pathFor(link, 'login'), true);
    }
  }

  return (
    <Page title="Recuperá tu contraseña">
      {step === 'identify' ? (
        <form ref={form} noValidate onSubmit={(event) => void requestCode(event)} class="form">
          <p>Te vamos a enviar un código de 6 números al e-mail de tu cuenta.</p>
          {failure && <ErrorBox message={failure} />}
          <IdentityFields {...who.fields} errors={errors} />
          <button type="submit" class="button" aria-disabled={busy}>
            {busy ? 'Enviando…' : 'Enviar código'}
          </button>
        </form>
      ) : (
        <form ref={form} noValidate onSubmit={(event) => void reset(event)} class="form">
          <h2 tabIndex={-1} ref={codeHeading}>
            Ingresá el código
          </h2>
          <Notice>
            Si los datos corresponden a una cuenta, te enviamos un código por e-mail. Vence en 15
            minutos.
          </Notice>
          {failure && <ErrorBox message={failure} />}
          <Field
            id="code"
            label="Código"
            hint="Los 6 números del e-mail."
            value={code}
            onInput={setCode}
            error={errors.code}
            autoComplete="one-time-code"
            inputMode="numeric"
            maxLength={6}
          />
          <NewPasswordFields
            idPrefix="password"
            label="Nueva contraseña"
            password={password}
            onPassword={setPassword}
            confirmation={confirmation}
            onConfirmation={setConfirmation}
            errors={errors}
          />
          <button type="submit" class="button" aria-disabled={busy}>
            {busy ? 'Guardando…' : 'Cambiar contraseña'}
          </button>
          <button
            type="button"
            class="button secondary"
            onClick={() => {
              setStep('identify');
              setFailure(null);
            }}
          >
            No me llegó el código
          </button>
        </form>
      )}
      <p class="links">
        <Link href={pathFor(link, 'login')}>Volver a ingresar</Link>
      </p>
    </Page>
  );
}
