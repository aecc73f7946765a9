/**
 * `orderUpdates` carries one block's transitions and is split into several frames once the
 * array would exceed 56 KiB (trading-api §6). Splits keep order; an element larger than the
 * cap on its own still goes out, alone.
 */
export const ORDER_UPDATES_FRAME_CAP = 56 * 1024

/** Serialised frames `{channel, data: [...]}`, each at most `cap` bytes when possible. */
export function splitArrayFrames(channel: string, items: unknown[], cap = ORDER_UPDATES_FRAME_CAP): string[] {
  const head = `{"channel":${JSON.stringify(channel)},"data":[`
  const tail = ']}'
  const frames: string[] = []
  let parts: string[] = []
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail)
  for (const item of items) {
    const s = JSON.stringify(item)
    const add = Buffer.byteLength(s) + (parts.length > 0 ? 1 : 0)
    if (parts.length > 0 && size + add > cap) {
      frames.push(head + parts.join(',') + tail)
      parts = []
      size = Buffer.byteLength(head) + Buffer.byteLength(tail)
    }
    size += Buffer.byteLength(s) + (parts.length > 0 ? 1 : 0)
    parts.push(s)
  }
  if (parts.length > 0) frames.push(head + parts.join(',') + tail)
  return frames
}
