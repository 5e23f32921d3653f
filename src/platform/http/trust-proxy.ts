/** TRUST_PROXY: whom to believe in X-Forwarded-For (every hop, a hop count, or addresses). */
export type TrustProxy = boolean | number | string;

/**
 * TRUST_PROXY as Fastify's trustProxy option. Fastify takes a hop count as a function of the hop
 * index; true, false and a list of addresses or CIDRs it takes as they are.
 */
export function fastifyTrustProxy(
  value: TrustProxy,
): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}
