/** Small deterministic PRNG (mulberry32) so randomized tests reproduce from their seed: the fuzzers' one. */
export { rng } from '../../fuzz/random.js';
