/**
 * "Sin conexión · Reintentar": shown while the session's refresh or check waits to be tried again
 * after no answer (session.ts). The customer stays on the page; the button tries now. The live
 * region is always in the page, so a screen reader announces the words when they appear.
 */
import { retryNow } from '../session/session.js';
import { useConnection } from '../session/use-session.js';

export function ConnectionStatus() {
  const connection = useConnection();
  return (
    <div class="connection" role="status" aria-live="polite">
      {connection.offline && (
        <p class="connection-inner">
          <span class="connection-text">Sin conexión</span>
          <span aria-hidden="true"> · </span>
          <button type="button" class="link-button" onClick={retryNow}>
            Reintentar
          </button>
        </p>
      )}
    </div>
  );
}
