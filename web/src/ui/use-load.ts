import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import { onLookAgain, type LookReason } from './look-again.js';

export type Load<T> =
  | { status: 'loading' }
  /** `version` counts the answers that changed what is shown (1 for the first). */
  | { status: 'ready'; data: T; version: number }
  | { status: 'error'; message: string };

/**
 * A tab shown again this soon after the last answer is not asked again: switching back and forth
 * between tabs must not spend the customer's requests (100 a minute, docs/api.md "Limits").
 */
const SHOWN_AGAIN_AFTER_MS = 2_000;

/**
 * Loads once per `key`; `retry` loads again. Errors become their Spanish message.
 *
 * It also looks again by itself (ui/look-again.ts: the tab shown again, the connection back,
 * another tab's change), unless `again` is false: a failed read is simply made again, showing
 * "Cargando…" as "Reintentar" would; a shown one is read quietly, and replaced only when the
 * answer differs (then `version` grows, so a page may start over what it built on the old one;
 * a quiet read that fails leaves what is shown). `refresh` is such a quiet read on demand (a
 * page whose figures change while it is read: a transfer credited).
 */
export function useLoad<T>(
  load: () => Promise<T>,
  key: string,
  options: { again?: boolean } = {},
): [Load<T>, () => void, () => void] {
  const [state, setState] = useState<Load<T>>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  // A look again reads with the latest render's `load`.
  const latest = useRef(load);
  latest.current = load;
  const again = options.again ?? true;
  const refresh = useRef<() => void>(() => undefined);
  useEffect(() => {
    let live = true;
    let current: Load<T> = { status: 'loading' };
    let shown = '';
    let inFlight = false;
    let answeredAt = 0;
    const show = (next: Load<T>) => {
      current = next;
      setState(next);
    };
    const read = (quiet: boolean) => {
      inFlight = true;
      if (!quiet) show({ status: 'loading' });
      latest.current().then(
        (data) => {
          inFlight = false;
          answeredAt = Date.now();
          if (!live) return;
          const text = JSON.stringify(data) ?? '';
          if (quiet && current.status === 'ready' && text === shown) return;
          shown = text;
          show({
            status: 'ready',
            data,
            version: current.status === 'ready' ? current.version + 1 : 1,
          });
        },
        (error: unknown) => {
          inFlight = false;
          answeredAt = Date.now();
          if (!live || (quiet && current.status === 'ready')) return;
          show({
            status: 'error',
            message:
              error instanceof ApiError
                ? error.message
                : 'No pudimos cargar los datos. Probá de nuevo.',
          });
        },
      );
    };
    read(false);
    refresh.current = () => {
      if (!inFlight) read(current.status === 'ready');
    };
    const lookAgain = (reason: LookReason) => {
      if (inFlight) return;
      if (reason === 'shown' && Date.now() - answeredAt < SHOWN_AGAIN_AFTER_MS) return;
      read(current.status === 'ready');
    };
    const stop = again ? onLookAgain(lookAgain) : () => undefined;
    return () => {
      live = false;
      stop();
    };
  }, [key, attempt]); // `load` is new on each render; `key` names what it loads
  return [state, () => setAttempt((n) => n + 1), () => refresh.current()];
}
