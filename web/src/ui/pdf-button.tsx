import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import { canSharePdf, downloadPdf, sharePdf } from './download.js';
import { ErrorBox } from './status.js';

/**
 * A button that downloads a PDF behind the access token (receipt, coupon): busy while it
 * fetches (a second click is ignored), the API's Spanish message under it when it fails.
 */
export function PdfButton(props: {
  /** Fetches the PDF: `() => authBlob(routes.x, { params })`. */
  load: () => Promise<Blob>;
  filename: string;
  label: string;
  /** Id of what says which document it is, when several buttons share a label. */
  describedBy?: string;
  secondary?: boolean;
  /** Smaller, for a button beside each row of a list or table. */
  compact?: boolean | undefined;
  /** Where the browser can share a PDF, share it (with this label) instead of downloading. */
  share?: { label: string; title: string };
}) {
  const [sharing] = useState(() => props.share !== undefined && canSharePdf());
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
      if (sharing && props.share) await sharePdf(props.load, props.filename, props.share.title);
      else await downloadPdf(props.load, props.filename);
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
        class={['button', props.secondary && 'secondary', props.compact && 'compact']
          .filter(Boolean)
          .join(' ')}
        aria-disabled={state.busy}
        aria-describedby={props.describedBy}
        onClick={() => void download()}
      >
        {state.busy
          ? sharing
            ? 'Preparando…'
            : 'Descargando…'
          : sharing && props.share
            ? props.share.label
            : props.label}
      </button>
      {state.error && <ErrorBox message={state.error} />}
    </>
  );
}
