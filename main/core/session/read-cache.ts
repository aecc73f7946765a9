/** Reads kept for a while, by key: a promise each, dropped when it fails. */
export type ReadCache = Map<string, { at: number; value: Promise<unknown> }>

/** The read kept under `key` while younger than `ttl`; otherwise `read()` again, kept from now. */
export function cachedRead<T>(map: ReadCache, key: string, ttl: number, now: () => number, read: () => Promise<T>): Promise<T> {
  const hit = map.get(key)
  if (hit && now() - hit.at < ttl) return hit.value as Promise<T>
  const value = read()
  map.set(key, { at: now(), value })
  value.catch(() => map.delete(key))
  return value
}
