export * from './errors.js';
export * from './glob.js';
export * from './target.js';
export * from './state-tree.js';
