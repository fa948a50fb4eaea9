import { isDict } from '@brine/core';
import { masterErrors } from './errors.js';
import { refusedTag } from './reactor-rules.js';

/** The largest event data a minion may send, as JSON (Salt's events are trimmed near 1 MiB; a reactor needs far less). */
export const MAX_MINION_EVENT_BYTES = 256 * 1024;

/**
 * A minion's `event.send` as the master fires it, in Salt's shape (`_minion_event`): the user's
 * data under `data`, the sender's `id` from its authenticated session (never from the request,
 * so a reactor cannot be fooled about who sent it), and `jid` only when the minion runs that job
 * (an event sent from a reaction's job carries its chain on). Tags under the master's own
 * namespaces (salt/, brine/) are refused.
 */
export function minionEvent(id: string, a: Record<string, unknown>, ownJid: string | undefined): { tag: string; data: Record<string, unknown> } {
  const tag = a.tag;
  if (typeof tag !== 'string') throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: "event.fire: 'tag' must be a string" });
  const why = refusedTag(tag);
  if (why) throw masterErrors.make('BRINE_ERR_MASTER_EVENT_TAG', { tag: tag.slice(0, 80), detail: why });
  const data = a.data ?? {};
  if (!isDict(data)) throw masterErrors.make('BRINE_ERR_MASTER_EVENT_DATA', { tag, detail: 'it must be a dictionary' });
  if (a.preload !== undefined && !isDict(a.preload)) throw masterErrors.make('BRINE_ERR_MASTER_EVENT_DATA', { tag, detail: "'preload' must be a dictionary" });
  const size = Buffer.byteLength(JSON.stringify({ data, preload: a.preload ?? {} }));
  if (size > MAX_MINION_EVENT_BYTES) {
    throw masterErrors.make('BRINE_ERR_MASTER_EVENT_DATA', { tag, detail: `${size} bytes of JSON, over the ${MAX_MINION_EVENT_BYTES} a minion may send` });
  }
  const { jid: _claimed, ...preload } = (a.preload ?? {}) as Record<string, unknown>;
  return {
    tag,
    data: { ...preload, id, tag, data, cmd: '_minion_event', _stamp: new Date().toISOString(), ...(ownJid ? { jid: ownJid } : {}) },
  };
}
