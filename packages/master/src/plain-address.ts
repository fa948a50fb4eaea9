/**
 * A peer's address as limits count it: an IPv4 peer on a dual-stack socket (`::ffff:10.0.0.1`)
 * is the same source as on an IPv4 one. No imports: the TLS thread loads it too.
 */
export function plainAddress(address: string | undefined): string {
  const a = address ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}
