import { createRequire } from 'node:module';
import { fromRoot } from './paths.js';

const require = createRequire(import.meta.url);
// From the root, not `../..`: the compiled build runs this module one folder deeper (dist/).
const { version } = require(fromRoot('package.json')) as { version: string };

export const packageVersion: string = version;
