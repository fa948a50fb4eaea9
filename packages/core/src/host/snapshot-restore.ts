import { startupSnapshot } from 'node:v8';

/**
 * For a module-level value worked out from the process (environment, home folder, install folder):
 * `brine`'s startup snapshot (packages/cli/src/snapshot-entry.ts) runs a warm-up compile while it
 * is built, and what that filled in belongs to the build, not to the run restored from it.
 * `forget` runs when the snapshot is restored, before Brine's main; outside a snapshot build, never.
 */
export function forgetAtSnapshotRestore(forget: () => void): void {
  if (startupSnapshot?.isBuildingSnapshot()) startupSnapshot.addDeserializeCallback(forget);
}
