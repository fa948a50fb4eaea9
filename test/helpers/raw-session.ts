import type { KeyObject } from 'node:crypto';
import { authSig, keyPair, RawClient } from './raw-client.js';

/**
 * A raw authenticated session of `minion` on the master at `port` (its key accepted or
 * autosigned), to send what a real minion never would. Pass the same key pair to keep one key per
 * id, as a real minion does.
 */
export async function rawSession(port: number, minion: string, kp: { pub: string; priv: KeyObject } = keyPair()): Promise<RawClient> {
  const c = new RawClient(port);
  await c.open();
  c.send({ v: 1, type: 'hello', minion, pub: kp.pub, version: 'x' });
  const ch = await c.next('challenge');
  c.send({ v: 1, type: 'auth', sig: authSig(kp.priv, minion, ch.nonce as string, c.binding()) });
  await c.next('welcome');
  return c;
}
