import type { CliIo } from '../io'

/** A non-interactive CliIo that keeps what a command printed (tests only): prompts refuse, as with no terminal. */
export function capturedIo(): { io: CliIo; out: () => string; err: () => string } {
  let out = ''
  let err = ''
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    isInteractive: () => false,
    promptLine: () => Promise.reject(new Error('no tty')),
    promptHidden: () => Promise.reject(new Error('no tty')),
  }
  return { io, out: () => out, err: () => err }
}
