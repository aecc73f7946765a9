import http from 'node:http'
import https from 'node:https'

/**
 * A JSON POST that tells apart a request that never left this process from one that was
 * written to the network and then lost: for a write, the first is safe to send again and
 * the second has an unknown outcome.
 */
export interface HttpAnswer {
  status: number
  headers: Record<string, string | undefined>
  text: string
}

export type TransportFailurePhase = 'beforeWrite' | 'afterWrite'

export class TransportFailure extends Error {
  constructor(
    readonly phase: TransportFailurePhase,
    readonly reason: 'connect' | 'timeout' | 'reset' | 'tooLarge' | 'other',
    message: string,
  ) {
    super(message)
    this.name = 'TransportFailure'
  }
}

export interface PostOptions {
  headers?: Record<string, string>
  /** Whole-request deadline; for /trade it must exceed the service's 10 s worst case. */
  timeoutMs: number
  /** Answers larger than this are cut off and reported as a transport failure. */
  maxResponseBytes?: number
  /** Called once the whole request has been handed to the socket (the /trade budget counts its arrival from here). */
  onWritten?: () => void
}

export type HttpPoster = (url: string, body: string, opts: PostOptions) => Promise<HttpAnswer>

export const postJson: HttpPoster = (url, body, opts) =>
  new Promise<HttpAnswer>((resolve, reject) => {
    let u: URL
    try {
      u = new URL(url)
    } catch {
      reject(new TransportFailure('beforeWrite', 'other', `invalid URL ${url}`))
      return
    }
    const lib = u.protocol === 'https:' ? https : http
    const payload = Buffer.from(body, 'utf8')
    let written = false
    let settled = false
    const fail = (reason: TransportFailure['reason'], message: string) => {
      if (settled) return
      settled = true
      reject(new TransportFailure(written ? 'afterWrite' : 'beforeWrite', reason, message))
    }
    const req = lib.request(
      u,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length), ...opts.headers },
        // A fresh connection per write: a pooled socket closed by the server between requests
        // would turn a never-sent request into an ambiguous "socket hang up".
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        const max = opts.maxResponseBytes ?? 4 * 1024 * 1024
        res.on('data', (c: Buffer) => {
          size += c.length
          if (size > max) {
            fail('tooLarge', `response larger than ${max} bytes`)
            req.destroy()
            return
          }
          chunks.push(c)
        })
        res.on('end', () => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          const headers: Record<string, string | undefined> = {}
          for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') })
        })
        res.on('error', (e) => fail('reset', e.message))
      },
    )
    const timer = setTimeout(() => {
      fail('timeout', `no answer within ${opts.timeoutMs} ms`)
      req.destroy()
    }, opts.timeoutMs)
    // 'finish' fires once the whole request has been handed to the socket.
    req.on('finish', () => {
      written = true
      opts.onWritten?.()
    })
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      const connect = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED'].includes(e.code ?? '')
      fail(connect ? 'connect' : 'reset', e.message)
    })
    req.end(payload)
  })
