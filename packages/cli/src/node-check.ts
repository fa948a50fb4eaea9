// Imported first by bin.ts, before any module that loads native code: better-sqlite3 built for
// Node 22+ ends an older Node with a bare "Segmentation fault". Plain syntax only, as old Nodes read it.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `brine: this is Node ${process.versions.node} (${process.execPath}); Brine needs Node 22 or later ` +
      '(24 recommended; package.json "engines"). Put a newer Node first on PATH, or use the release tarball, which carries its own Node.\n',
  );
  process.exit(1);
}
export {};
