import { useState } from 'preact/hooks';
import type { GeneratedCoupon } from '../../api/types.js';
import { authCall } from '../../session/session.js';
import { Empty, ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { CouponForm } from './form.js';
import { Generated } from './generated.js';
import { routes } from '../../../../contract/routes.js';

/**
 * "Generar un cupón": the pending debts to choose from (any of them, any part of each:
 * docs/decisions.md #36), then the coupon generated.
 */
export function Generator(props: {
  userId: string;
  /** The business's networks (`redes_cobranza`), or null. */
  redes: string | null;
  onGenerated: () => void;
}) {
  const [round, setRound] = useState(0);
  const [state, retry] = useLoad(
    () => authCall(routes.listDebts),
    `coupon-debts-${props.userId}-${round}`,
  );
  const [coupon, setCoupon] = useState<GeneratedCoupon | null>(null);
  if (coupon) {
    return (
      <Generated
        coupon={coupon}
        redes={props.redes}
        onAnother={() => {
          setCoupon(null);
          setRound((n) => n + 1);
        }}
      />
    );
  }
  if (state.status === 'loading') return <Loading label="Cargando tus facturas…" />;
  if (state.status === 'error') return <ErrorBox message={state.message} onRetry={retry} />;
  if (state.data.items.length === 0)
    return (
      <Empty title="Estás al día">
        <p>No tenés facturas pendientes para incluir en un cupón.</p>
      </Empty>
    );
  return (
    <CouponForm
      key={round}
      debts={state.data.items}
      reload={() => setRound((n) => n + 1)}
      onGenerated={(c) => {
        setCoupon(c);
        props.onGenerated();
      }}
    />
  );
}
