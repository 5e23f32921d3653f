import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import { downloadPdf } from './download.js';
import { ErrorBox } from './status.js';

/**
 * A button that downloads a PDF behind the access token (receipt, coupon): busy while it
 * fetches (a second click is ignored), the API's Spanish message under it when it fails.
 */
export function PdfButton(props: {
  path: string;
  filename: string;
  label: string;
  /** Id of what says which document it is, when several buttons share a label. */
  describedBy?: string;
  secondary?: boolean;
}) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({
    busy: false,
    error: null,
  });
  const busy = useRef(false);
  async function download() {
    if (busy.current) return;
    busy.current = true;
    setState({ busy: true, error: null });
    try {
      await downloadPdf(props.path, props.filename);
      setState({ busy: false, error: null });
    } catch (error) {
      setState({
        busy: false,
        error: error instanceof ApiError ? error.message : 'No pudimos descargar el PDF.',
      });
    } finally {
      busy.current = false;
    }
  }
  return (
    <>
      <button
        type="button"
        class={props.secondary ? 'button secondary' : 'button'}
        aria-disabled={state.busy}
        aria-describedby={props.describedBy}
        onClick={() => void download()}
      >
        {state.busy ? 'Descargando…' : props.label}
      </button>
      {state.error && <ErrorBox message={state.error} />}
    </>
  );
}
