/**
 * nunjucks (CommonJS, packages/jinja's own dependency), the one place it is imported: by ESM
 * imports, which the CLI's bundle resolves at build time and holds whole (one file to load instead
 * of about 25 CommonJS ones to find and read at every `brine local`).
 */
import nunjucksLib from 'nunjucks';
import parserLib from 'nunjucks/src/parser.js';
import compilerLib from 'nunjucks/src/compiler.js';
import transformerLib from 'nunjucks/src/transformer.js';

export const nunjucks: any = nunjucksLib;
export const NunjucksParser: any = parserLib.Parser;
export const NunjucksCompiler: any = compilerLib.Compiler;
export const nunjucksTransformer: any = transformerLib;
