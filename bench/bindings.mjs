// Scenario: 200 module bindings files (11,000 bindings, 5,000 names), loaded once, resolved for 100 minions.
// Run after `npx tsc -b packages/bindings`: node bench/bindings.mjs
import { loadBindings, memoryBindingsSource, resolveBindings } from '../packages/bindings/dist/index.js';
const modules = {};
for (let m = 0; m < 200; m++) {
  let text = `bindings_version: 1\nname: 'mod${m}::default'\nbind:\n`;
  for (let i = 0; i < 25; i++) text += `  - ['mod${m}.key${i}', 'v${i} \${osfamily}']\n`;
  text += `  - when: {osfamily: Debian}\n    bind:\n`;
  for (let i = 0; i < 25; i++) text += `      - ['mod${m}.key${i}', 'debian ${i}']\n`;
  text += `  - when: {node: web7, environment: prod}\n    bind:\n`;
  for (let i = 0; i < 5; i++) text += `      - ['mod${m}.key${i}', 'web7 ${i}']\n`;
  modules[`mod${m}/bindings/default.yaml`] = text;
}
const src = memoryBindingsSource({ modules });
let t0 = performance.now();
const loaded = loadBindings(src);
const load = performance.now() - t0;
t0 = performance.now();
for (let n = 0; n < 100; n++)
  resolveBindings({ files: loaded.value, minion: { id: `web${n}`, environment: 'prod', grains: { os_family: n % 2 ? 'Debian' : 'RedHat' } } });
const per = (performance.now() - t0) / 100;
console.log(
  JSON.stringify({ bench: 'bindings', files: 200, bindings: loaded.value.bindings.length, load_ms: +load.toFixed(1), resolve_ms_per_minion: +per.toFixed(2) }),
);
