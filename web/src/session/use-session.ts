import { useEffect, useState } from 'preact/hooks';
import {
  getConnection,
  getSession,
  subscribe,
  subscribeConnection,
  type Connection,
  type SessionState,
} from './session.js';

export function useSession(): SessionState {
  const [state, setState] = useState(getSession);
  useEffect(() => {
    setState(getSession());
    return subscribe(setState);
  }, []);
  return state;
}

/** Whether the API answers (session.ts `Connection`): the "Sin conexión" status reads it. */
export function useConnection(): Connection {
  const [state, setState] = useState(getConnection);
  useEffect(() => {
    setState(getConnection());
    return subscribeConnection(setState);
  }, []);
  return state;
}
