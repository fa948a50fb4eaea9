/** Appends to the list of `key`, creating it: lists grow in place, never copied per push. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, v: V): void {
  const list = map.get(key);
  if (list) list.push(v);
  else map.set(key, [v]);
}
