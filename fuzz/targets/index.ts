/** Every fuzz target by name, in the order `npm run fuzz` runs them. */
import type { AnyTarget } from '../target.js';
import { aclTarget } from './acl.js';
import { CODEC_TARGETS } from './codecs.js';
import { clientsTarget } from './clients.js';
import { brokerTarget, namesrvTarget } from './servers.js';

export const TARGETS: readonly AnyTarget[] = [
  ...CODEC_TARGETS,
  brokerTarget,
  namesrvTarget,
  aclTarget,
  clientsTarget,
];
