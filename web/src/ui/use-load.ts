import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';

export type Load<T> =
  { status: 'loading' } | { status: 'ready'; data: T } | { status: 'error'; message: string };

/** Loads once per `key`; `retry` loads again. Errors become their Spanish message. */
export function useLoad<T>(load: () => Promise<T>, key: string): [Load<T>, () => void] {
  const [state, setState] = useState<Load<T>>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setState({ status: 'loading' });
    load().then(
      (data) => live && setState({ status: 'ready', data }),
      (error: unknown) =>
        live &&
        setState({
          status: 'error',
          message:
            error instanceof ApiError
              ? error.message
              : 'No pudimos cargar los datos. Probá de nuevo.',
        }),
    );
    return () => {
      live = false;
    };
  }, [key, attempt]); // `load` is new on each render; `key` names what it loads
  return [state, () => setAttempt((n) => n + 1)];
}
