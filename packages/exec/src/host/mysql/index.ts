export * from './client.js';
export * from './databases.js';
export * from './users.js';
export * from './grants.js';
