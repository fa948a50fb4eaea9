// nunjucks' own modules that the dialect extends (no types are published for them)
declare module 'nunjucks/src/parser.js';
declare module 'nunjucks/src/compiler.js';
declare module 'nunjucks/src/transformer.js';
