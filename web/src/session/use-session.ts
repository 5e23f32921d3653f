import { useEffect, useState } from 'preact/hooks';
import { getSession, subscribe, type SessionState } from './session.js';

export function useSession(): SessionState {
  const [state, setState] = useState(getSession);
  useEffect(() => {
    setState(getSession());
    return subscribe(setState);
  }, []);
  return state;
}
