/** Small deterministic PRNG (mulberry32) so randomized tests reproduce from their seed. */
export { rng } from '../../src/cli/chaos/random.js';
