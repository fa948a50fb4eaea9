import { startupSnapshot } from 'node:v8';

const forgets: (() => void)[] = [];

/**
 * For a module-level value worked out from the process (environment, home folder, install folder):
 * `brine`'s startup snapshot (packages/cli/src/snapshot-entry.ts) runs a warm-up compile while it
 * is built, and what that filled in belongs to the build, not to the run restored from it.
 * `forget` runs when the snapshot is restored, before Brine's main; outside a snapshot build, never.
 */
export function forgetAtSnapshotRestore(forget: () => void): void {
  if (!startupSnapshot?.isBuildingSnapshot()) return;
  startupSnapshot.addDeserializeCallback(forget);
  forgets.push(forget);
}

/**
 * Runs every `forget` once more while the snapshot is built, after its warm-up: the snapshot then
 * holds them compiled (else every run compiles them first) and holds less of the warm-up.
 */
export function forgetBeforeSnapshot(): void {
  for (const forget of forgets) forget();
}
