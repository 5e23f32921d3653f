import { rememberedPortal } from '../portal-memory.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { ErrorBox } from '../ui/status.js';

export function LandingPage() {
  return (
    <Page title="Portal de clientes">
      <p>
        Para entrar usá el enlace que te dio la empresa de la que sos cliente (por ejemplo, en tu
        factura o en su sitio web).
      </p>
    </Page>
  );
}

export function NotFoundPage(props: { home?: string; message?: string }) {
  return (
    <Page title="No encontramos esta página">
      <p>{props.message ?? 'Revisá la dirección o volvé al inicio.'}</p>
      {props.home && (
        <p>
          <Link href={props.home}>Ir al inicio</Link>
        </p>
      )}
    </Page>
  );
}

/**
 * The result page without a session: back to the portal's login, then here again. The portal is
 * the address's when it names one, else the one this tab left for the gateway from.
 */
export function ResultLoginPage(props: { next: string; login?: string }) {
  const portal = rememberedPortal();
  const login =
    props.login ?? (portal ? `${portal}ingresar?next=${encodeURIComponent(props.next)}` : null);
  return (
    <Page title="Resultado del pago">
      <p>Para ver cómo terminó tu pago, ingresá a tu cuenta.</p>
      {login ? (
        <p>
          <Link href={login} class="button">
            Ingresar
          </Link>
        </p>
      ) : (
        <p>Entrá con el enlace de la empresa y revisá tus pagos.</p>
      )}
    </Page>
  );
}

/** A token of another business than the address names: nothing of it, no brand (issue 45). */
export function ForgedLink(props: { what?: string }) {
  return (
    <Page title="No pudimos abrir este enlace">
      <ErrorBox
        message={`Este ${props.what ?? 'enlace'} no corresponde a la empresa de la dirección. No lo uses: pedile a la empresa que te envió el mensaje un enlace nuevo.`}
      />
    </Page>
  );
}
