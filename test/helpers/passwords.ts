import { bcryptHasher } from '../../src/platform/security/passwords.js';

/**
 * The real bcrypt at its lowest cost, 4, for the apps tests build in process. A cost-12 hash takes
 * about a quarter of a second of CPU on the CI machine, and the suite registers and logs in
 * hundreds of times: that was 3 of its 10 CPU minutes. What the cost itself decides is tested at 12
 * (`bcryptPasswords`): the stored hash's cost at registration, the demo seed's, the lockout burst,
 * and every process the tests start (`npm start`, the browser tests' portal) runs the portal's own.
 */
export const quickPasswords = bcryptHasher(
  4,
  '$2b$04$WKxl.ci7EYsTpgnfmb6YUOO1tE9WpN0kF8gAd.jvkG.Ta6tOg8nwi',
);
