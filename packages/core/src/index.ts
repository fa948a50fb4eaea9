export * from './types.js';
export * from './errors.js';
export * from './logger.js';
export * from './tag.js';
export * from './state-module.js';
export * from './host/command-runner.js';
export * from './requisites.js';
