import { useEffect, useRef } from 'preact/hooks';
import { ErrorBox, Notice } from './status.js';

/** What an action on a payment did (a cancel, a refund), shown above the list read again. */
export interface Outcome {
  kind: 'success' | 'error';
  message: string;
}

/**
 * The outcome, focused when it appears: the control that had focus is gone with the list read
 * again, so focus goes to what happened.
 */
export function OutcomeBox(props: { outcome: Outcome | null }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), [props.outcome]);
  const { outcome } = props;
  if (!outcome) return null;
  return (
    <div tabIndex={-1} ref={box} class="focus-target">
      {outcome.kind === 'success' ? (
        <Notice kind="success">{outcome.message}</Notice>
      ) : (
        <ErrorBox message={outcome.message} />
      )}
    </div>
  );
}
