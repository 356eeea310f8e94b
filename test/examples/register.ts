/** `node --import build/test/examples/register.js example.js`: installs resolve-hook.ts. */
import { register } from 'node:module';

register('./resolve-hook.js', import.meta.url);
