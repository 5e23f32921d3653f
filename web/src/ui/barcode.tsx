import { couponSymbolDigits, itfBars } from '../lib/itf.js';
import { groupDigits } from '../lib/coupon.js';

/**
 * A coupon's ITF barcode drawn as SVG, with the 19 digits under it. The SVG scales to the width
 * it is given (a phone's whole width: modules of about 1.7 CSS px at 360 px) and keeps its bars
 * crisp; black on white in either theme, as a scanner needs.
 */
export function CouponBarcode(props: { code: string; digitsId: string }) {
  const { bars, width } = itfBars(couponSymbolDigits(props.code));
  const height = Math.round(width * 0.22);
  return (
    <figure class="barcode-figure">
      <svg
        class="barcode-svg"
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
        shape-rendering="crispEdges"
        role="img"
        aria-label="Código de barras del cupón"
      >
        <rect width={width} height={height} fill="#fff" />
        {bars.map((bar) => (
          <rect key={bar.x} x={bar.x} width={bar.width} height={height} fill="#000" />
        ))}
      </svg>
      <figcaption class="barcode-digits" id={props.digitsId}>
        <span class="visually-hidden">Código para pagar: </span>
        {groupDigits(props.code)}
      </figcaption>
    </figure>
  );
}
