import { useState } from 'preact/hooks';
import {
  COUPON_STATES,
  couponListQuery,
  couponStateLabel,
  PAGE_SIZE,
  type CouponState,
} from '../../lib/coupon.js';
import { authCall } from '../../session/session.js';
import { PagedCards, usePaging } from '../../ui/pager.js';
import { Empty, Notice } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { CouponCard } from './card.js';
import { routes } from '../../../../contract/routes.js';

/** "Tus cupones": a state filter, 20 a page with "Anteriores" / "Siguientes". */
export function CouponList(props: { userId: string; refresh: number }) {
  const [stateFilter, setStateFilter] = useState<CouponState | null>(null);
  const pager = usePaging();
  const [state, retry] = useLoad(
    () => authCall(routes.listCoupons, { query: couponListQuery(stateFilter, pager.offset) }),
    `coupons-${props.userId}-${stateFilter ?? 'all'}-${pager.offset}-${props.refresh}`,
  );

  return (
    <>
      <h2 id="lista-title" ref={pager.heading} tabIndex={-1}>
        Tus cupones
      </h2>
      <div class="field filter">
        <label for="estado-cupon">Estado</label>
        <select
          id="estado-cupon"
          value={stateFilter ?? ''}
          onChange={(event) => {
            const value = event.currentTarget.value;
            setStateFilter(COUPON_STATES.find((s) => s === value) ?? null);
            pager.reset();
          }}
        >
          <option value="">Todos</option>
          {COUPON_STATES.map((s) => (
            <option key={s} value={s}>
              {couponStateLabel(s)}
            </option>
          ))}
        </select>
      </div>
      <PagedCards
        state={state}
        items={state.status === 'ready' ? state.data.cupones : []}
        retry={retry}
        pager={pager}
        pageSize={PAGE_SIZE}
        noun="Cupones"
        loading="Cargando tus cupones…"
        empty={
          stateFilter !== null ? (
            <Notice>No tenés cupones en ese estado.</Notice>
          ) : (
            <Empty title="Todavía no generaste cupones" tone="neutral">
              <p>Cuando generes uno, lo vas a ver acá.</p>
            </Empty>
          )
        }
        card={(coupon) => <CouponCard key={coupon.cupon_id} coupon={coupon} />}
      />
    </>
  );
}
