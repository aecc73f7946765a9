/** The desk's end of the attach socket: requests by id, pushed events, the host's hello. */
import { connect, type Socket } from 'node:net'
import type { Result } from '../../contract/types'
import { DeskError } from '../../core/errors/desk-error'
import { encodeLine, lineSplitter, type AttachMessage } from './protocol'

export interface AttachClient {
  /** The process that runs the core (from its hello). */
  readonly pid: number
  /** The serving app's version (from its hello). */
  readonly version: string
  dispatch(channel: string, args: unknown): Promise<Result<unknown>>
  onEvent(fn: (event: string, payload: unknown) => void): () => void
  close(): Promise<void>
}

/** Connects, or rejects with the socket error's code (ENOENT, ECONNREFUSED: nobody is serving). */
export function connectAttach(endpoint: string, timeoutMs = 3000): Promise<AttachClient> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(endpoint)
    const pending = new Map<string, (r: Result<unknown>) => void>()
    const listeners = new Set<(event: string, payload: unknown) => void>()
    let nextId = 1
    let hello: { pid: number; version: string } | null = null
    let lost: DeskError | null = null
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new DeskError('AttachTimeout', `no answer from the desk socket ${endpoint}`))
    }, timeoutMs)

    const fail = (e: DeskError) => {
      lost ??= e
      for (const r of pending.values()) r({ ok: false, error: { code: e.code, message: e.message } })
      pending.clear()
    }
    const onMessage = (m: AttachMessage) => {
      if (m.type === 'hello' && !hello) {
        hello = { pid: m.pid, version: typeof m.version === 'string' ? m.version : '' }
        clearTimeout(timer)
        resolve(client)
      } else if (m.type === 'result') {
        const r = pending.get(m.id)
        pending.delete(m.id)
        r?.(m.result)
      } else if (m.type === 'event') {
        for (const l of listeners) l(m.event, m.payload)
      } else if (m.type === 'error') {
        fail(new DeskError(m.error.code, m.error.message))
      }
    }
    const client: AttachClient = {
      get pid() {
        return hello?.pid ?? 0
      },
      get version() {
        return hello?.version ?? ''
      },
      dispatch(channel, args) {
        if (lost) return Promise.resolve({ ok: false, error: { code: lost.code, message: lost.message } })
        const id = String(nextId++)
        return new Promise((res) => {
          pending.set(id, res)
          socket.write(encodeLine({ id, channel, args }))
        })
      },
      onEvent(fn) {
        listeners.add(fn)
        return () => listeners.delete(fn)
      },
      close: () =>
        new Promise<void>((res) => {
          if (socket.destroyed) return res()
          socket.once('close', () => res())
          socket.end()
        }),
    }
    socket.on(
      'data',
      lineSplitter(
        (line) => {
          try {
            onMessage(JSON.parse(line) as AttachMessage)
          } catch {
            fail(new DeskError('AttachProtocol', 'the host sent a line that is not JSON'))
            socket.destroy()
          }
        },
        () => {
          fail(new DeskError('AttachProtocol', 'the host sent an oversized line'))
          socket.destroy()
        },
      ),
    )
    socket.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      if (!hello)
        return reject(
          Object.assign(new DeskError('AttachFailed', `cannot attach to ${endpoint}: ${e.code ?? e.message}`), { errno: e.code }),
        )
      fail(new DeskError('AttachLost', `the desktop app's socket failed: ${e.code ?? e.message}`))
    })
    socket.on('close', () => {
      clearTimeout(timer)
      if (!hello) reject(new DeskError('AttachFailed', `the desk socket ${endpoint} closed before its hello`))
      fail(new DeskError('AttachLost', 'the desktop app closed the connection (did it quit?)'))
    })
  })
}
