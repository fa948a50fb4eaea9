export * from './errors.js';
export * from './messages.js';
export * from './validate.js';
export * from './json-bounds.js';
export * from './large-frames.js';
