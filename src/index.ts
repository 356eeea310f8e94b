export * from './errors.js';
export * from './protocol/codes.js';
export * from './protocol/command.js';
export * from './protocol/frame.js';
