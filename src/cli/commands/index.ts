import type { CliCommand } from '../command.js';

/** Every CLI command; each helper file adds itself here. */
export const commands: CliCommand[] = [];
