import { pageHeading } from '../../page-paths.js';
import { useState } from 'preact/hooks';
import type { PrivatePageProps } from '../../page-props.js';
import { couponIntro } from '../../lib/coupon.js';
import { useEmpresa } from '../../ui/brand.js';
import { Page } from '../../ui/page.js';
import { CouponList } from './list.js';
import { Generator } from './generator.js';
import { CouponHolder } from './ticket.js';

/**
 * Coupons (docs/api.md cupones): generate one for any debts and amounts (docs/decisions.md #36: no FIFO,
 * partial amounts), see its 19 digits and PDF; below, the coupons with a state filter and pages.
 * Where a coupon is paid is the business's own networks when it names them (`redes_cobranza`).
 */
export function CouponsPage(props: PrivatePageProps) {
  const userId = props.me.portal_user_id;
  const [generated, setGenerated] = useState(0);
  const redes = useEmpresa()?.redes_cobranza ?? null;
  return (
    <CouponHolder.Provider value={props.me}>
      <Page title={pageHeading('coupons', props.me.nombre)}>
        <p>{couponIntro(redes)}</p>
        <section aria-labelledby="generar-title">
          <h2 id="generar-title">Generar un cupón</h2>
          <Generator userId={userId} redes={redes} onGenerated={() => setGenerated((n) => n + 1)} />
        </section>
        <section aria-labelledby="lista-title">
          <CouponList userId={userId} refresh={generated} />
        </section>
      </Page>
    </CouponHolder.Provider>
  );
}
