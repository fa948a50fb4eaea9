export * from './errors.js';
export * from './config.js';
export * from './identity.js';
export * from './grains.js';
export * from './exec-function.js';
export * from './exec-modules.js';
export * from './spool.js';
export * from './agent.js';
