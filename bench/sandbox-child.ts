/**
 * The live sandbox in a process of its own, for the latency bench: the exchange is remote in
 * production, so its matching, blocks and bot must not share the core's event loop and show up
 * as the desk's latency. The parent asks for deposits over IPC; this process reports when its
 * socket sends a spotState frame carrying a watched user's new USDC total (wall clock of the same
 * machine as the page's observer).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { WebSocket } from 'ws'
import type { HttpResult } from '../sandbox/trading/types'
import { startLiveSandbox, urlsOf, type SandboxUrls } from './desk-fixture'

type ToChild =
  | { type: 'deposit'; id: number; address: string; assetId: number; atoms: string }
  | { type: 'watch'; user: string }
  | { type: 'requests'; id: number }
  | { type: 'stop' }
type FromChild =
  | { type: 'ready'; urls: SandboxUrls }
  | { type: 'deposited'; id: number }
  | { type: 'sent'; whole: string; at: number }
  | { type: 'requests'; id: number; log: ServiceRequest[] }

/** One /info or /trade request as the sandbox answered it (its own record, not the desk's view). */
export interface ServiceRequest {
  api: 'info' | 'trade'
  /** the peer the service rate-limits on (the bot's are `internal:*`) */
  ip: string
  /** when the service took it (its token bucket's clock) */
  at: number
  status: number
  /** the error code of a refused request (`RateLimited`…) */
  code?: string
}

/** Records every /info and /trade answer of `trading` (HTTP and WebSocket `post` alike call these two). */
function recordRequests(
  trading: { handleInfo: (...a: never[]) => Promise<HttpResult>; handleTrade: (...a: never[]) => Promise<HttpResult> },
  log: ServiceRequest[],
): void {
  const wrap =
    <A extends unknown[]>(api: 'info' | 'trade', fn: (...a: A) => Promise<HttpResult>, ipOf: (a: A) => string) =>
    async (...a: A): Promise<HttpResult> => {
      const at = Date.now()
      const r = await fn(...a)
      const body = r.body as { error?: { code?: unknown } } | null
      const code = body && typeof body === 'object' && typeof body.error?.code === 'string' ? body.error.code : undefined
      log.push({ api, ip: ipOf(a), at, status: r.status, ...(code ? { code } : {}) })
      return r
    }
  const t = trading as unknown as {
    handleInfo: (body: unknown, ip: string) => Promise<HttpResult>
    handleTrade: (body: string, h: Record<string, string | undefined>, ip: string) => Promise<HttpResult>
  }
  t.handleInfo = wrap('info', t.handleInfo.bind(t), (a) => a[1])
  t.handleTrade = wrap('trade', t.handleTrade.bind(t), (a) => a[2])
}

async function child(): Promise<void> {
  const sandbox = await startLiveSandbox()
  const requests: ServiceRequest[] = []
  recordRequests(sandbox.trading, requests)
  let watched: string | null = null
  const reported = new Set<string>()
  const proto = WebSocket.prototype as unknown as { send: (data: unknown, ...rest: unknown[]) => void }
  const original = proto.send
  proto.send = function (this: unknown, data: unknown, ...rest: unknown[]) {
    if (watched && typeof data === 'string' && data.includes('"spotState"') && data.includes(watched)) {
      const at = Date.now()
      try {
        const f = JSON.parse(data) as { channel: string; data?: { user?: string; balances?: { token: number; total: string }[] } }
        const usdc =
          f.channel === 'spotState' && f.data?.user?.toLowerCase() === watched ? f.data.balances?.find((b) => b.token === 1) : undefined
        if (usdc) {
          const whole = usdc.total.split('.')[0]!
          if (!reported.has(whole)) {
            reported.add(whole)
            process.send?.({ type: 'sent', whole, at } satisfies FromChild)
          }
        }
      } catch {
        // not a frame of ours
      }
    }
    original.call(this, data, ...rest)
  }
  process.on('message', (m: ToChild) => {
    if (m.type === 'deposit') {
      sandbox.trading.deposit(m.address as `0x${string}`, m.assetId, BigInt(m.atoms))
      process.send?.({ type: 'deposited', id: m.id } satisfies FromChild)
    } else if (m.type === 'watch') {
      watched = m.user.toLowerCase()
    } else if (m.type === 'requests') {
      process.send?.({ type: 'requests', id: m.id, log: requests } satisfies FromChild)
    } else if (m.type === 'stop') {
      void sandbox.stop().finally(() => process.exit(0))
    }
  })
  process.send?.({ type: 'ready', urls: urlsOf(sandbox) } satisfies FromChild)
}

export interface RemoteSandbox {
  urls: SandboxUrls
  /** Deposits into `address` (resolves once the sandbox has taken it). */
  deposit(address: string, assetId: number, atoms: bigint): Promise<void>
  /** Reports the send time of each new whole USDC total of `user` in spotState frames. */
  watch(user: string): Map<string, number>
  /** Every /info and /trade request the sandbox answered so far, refused ones with their code. */
  requests(): Promise<ServiceRequest[]>
  stop(): Promise<void>
}

export function startSandboxProcess(): Promise<RemoteSandbox> {
  const proc: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const waiting = new Map<number, () => void>()
  const sentAt = new Map<string, number>()
  const answers = new Map<number, (log: ServiceRequest[]) => void>()
  let nextId = 1
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`the sandbox process exited (code ${code})`)))
    proc.on('message', (m: FromChild) => {
      if (m.type === 'deposited') {
        waiting.get(m.id)?.()
        waiting.delete(m.id)
      } else if (m.type === 'requests') {
        answers.get(m.id)?.(m.log)
        answers.delete(m.id)
      } else if (m.type === 'sent') {
        sentAt.set(m.whole, m.at)
      } else if (m.type === 'ready') {
        proc.removeAllListeners('exit')
        // A sandbox that dies mid-run fails the bench (its frames stop), never hangs it on a deposit.
        proc.once('exit', () => {
          for (const done of waiting.values()) done()
          waiting.clear()
        })
        resolve({
          urls: m.urls,
          deposit: (address, assetId, atoms) =>
            new Promise<void>((done) => {
              const id = nextId++
              waiting.set(id, done)
              proc.send({ type: 'deposit', id, address, assetId, atoms: atoms.toString() } satisfies ToChild)
            }),
          requests: () =>
            new Promise<ServiceRequest[]>((done, fail) => {
              const id = nextId++
              answers.set(id, done)
              if (!proc.connected) fail(new Error('the sandbox process is gone'))
              else proc.send({ type: 'requests', id } satisfies ToChild)
            }),
          watch: (user) => {
            proc.send({ type: 'watch', user } satisfies ToChild)
            return sentAt
          },
          stop: () =>
            new Promise<void>((done) => {
              const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000)
              proc.once('exit', () => {
                clearTimeout(kill)
                done()
              })
              proc.send({ type: 'stop' } satisfies ToChild)
            }),
        })
      }
    })
  })
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain && process.argv[2] === '--child') await child()
