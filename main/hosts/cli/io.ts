/**
 * Terminal input and output for `desk`: plain writes, a visible line prompt and a hidden prompt
 * for secrets (raw mode, nothing echoed). Secrets are never read from the command line.
 */
import { createInterface } from 'node:readline'
import { DeskError } from '../../contract/errors'

export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  isInteractive(): boolean
  promptLine(question: string): Promise<string>
  promptHidden(question: string): Promise<string>
}

function noTty(): DeskError {
  return new DeskError('NoTerminal', 'no terminal to prompt on; pass the secret with the matching --…-file option')
}

export function processIo(): CliIo {
  const stdin = process.stdin
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    isInteractive: () => Boolean(stdin.isTTY && process.stderr.isTTY),
    promptLine(question) {
      if (!stdin.isTTY) return Promise.reject(noTty())
      const rl = createInterface({ input: stdin, output: process.stderr })
      return new Promise((resolve) => rl.question(question, (answer) => (rl.close(), resolve(answer))))
    },
    promptHidden(question) {
      if (!stdin.isTTY) return Promise.reject(noTty())
      process.stderr.write(question)
      return new Promise((resolve, reject) => {
        let value = ''
        const done = (err: DeskError | null) => {
          stdin.off('data', onData)
          stdin.setRawMode(false)
          stdin.pause()
          process.stderr.write('\n')
          if (err) reject(err)
          else resolve(value)
        }
        const onData = (chunk: string) => {
          for (const ch of chunk) {
            if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(null)
            if (ch === '\u0003') return done(new DeskError('Cancelled', 'cancelled'))
            if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('')
            else if (ch >= ' ') value += ch
          }
        }
        stdin.setEncoding('utf8')
        stdin.setRawMode(true)
        stdin.resume()
        stdin.on('data', onData)
      })
    },
  }
}
