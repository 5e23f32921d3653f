import type { DoorName } from '../../../contract/routes.js';
import type { IdempotencyChecks } from '../idempotency/http.js';
import { customerDoor } from './customer.js';
import type { DoorChecks, DoorDefinition, DoorDeps, SecurityScheme } from './door.js';
import { payerDoor } from './payer.js';
import { publicDoor } from './public.js';
import { staffDoor } from './staff.js';

export type { DoorDeps, OnRequestHook, SecurityScheme } from './door.js';

/**
 * Every door, by the name the route table's entries give it: a door named in contract/routes.ts
 * without a definition here (or the other way round) fails the typecheck.
 */
const DOORS = {
  public: publicDoor,
  customer: customerDoor,
  payer: payerDoor,
  staff: staffDoor,
} as const satisfies { readonly [N in DoorName]: DoorDefinition };

/** A door opened with the platform's pieces: its checks and what its routes document. */
export interface OpenDoor extends DoorChecks {
  readonly name: DoorName;
  readonly privateAnswers: boolean;
  /** The OpenAPI security requirement of its routes (absent: the operation takes none). */
  readonly security: readonly Record<string, readonly string[]>[] | undefined;
}

/** What a route declaration attaches to a route beyond its handler (declare-route.ts). */
export interface RouteChecks {
  readonly doors: { readonly [N in DoorName]: OpenDoor };
  /** The Idempotency-Key's hooks; a build without them refuses a route that names it. */
  readonly idempotency?: IdempotencyChecks;
}

const isDoorName = (name: string): name is DoorName => name in DOORS;

export function openDoors(deps: DoorDeps): RouteChecks['doors'] {
  const open = (name: DoorName): [DoorName, OpenDoor] => {
    const door: DoorDefinition = DOORS[name];
    const opened: OpenDoor = {
      name,
      ...door.open(deps),
      privateAnswers: door.privateAnswers,
      security: door.scheme && [{ [door.scheme.name]: [] }],
    };
    return [name, opened];
  };
  // Every key of DOORS, each opened: the record is whole by construction (fromEntries types it
  // by string only).
  return Object.fromEntries(
    Object.keys(DOORS).filter(isDoorName).map(open),
  ) as RouteChecks['doors'];
}

/** The OpenAPI document's security schemes: those of the doors that take a credential. */
export function securitySchemes(): Record<string, SecurityScheme> {
  const defined: DoorDefinition[] = Object.values(DOORS);
  return Object.fromEntries(
    defined.flatMap((door) => (door.scheme ? [[door.scheme.name, door.scheme.definition]] : [])),
  );
}
