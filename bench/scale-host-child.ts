/**
 * The scale bench's desk host in a process of its own: the core and the loopback web host over a
 * data dir, unlocked, as the Electron main process holds them (no Playwright client, no bench
 * arrays), reporting its RSS every second over IPC. The parent drives Chromium against its URL,
 * so the RSS is the host's alone while a browser shows the overview and frames arrive.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startWebHost } from '../main/hosts/web/server'
import { repoRoot } from '../e2e/harness'
import { BENCH_PASSPHRASE, call, openCore, type SandboxUrls } from './desk-fixture'

type FromChild = { type: 'ready'; url: string } | { type: 'rss'; rss: number; heap: number }

export interface HostChild {
  url: string
  /** RSS samples (bytes), one a second since the host was ready. */
  rss: number[]
  stop(): Promise<void>
}

/** Forks the host over `dataDir` and resolves once its web host listens and the vault is unlocked. */
export function startHostChild(dataDir: string, urls: SandboxUrls): Promise<HostChild> {
  const proc: ChildProcess = fork(fileURLToPath(import.meta.url), ['--host-child', dataDir, JSON.stringify(urls)], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const rss: number[] = []
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('scale host child: not ready within 120 s')), 120_000)
    proc.once('exit', (code) => reject(new Error(`scale host child exited (${code}) before it was ready`)))
    proc.on('message', (m) => {
      const msg = m as FromChild
      if (msg.type === 'rss') rss.push(msg.rss)
      else if (msg.type === 'ready') {
        clearTimeout(timer)
        resolve({
          url: msg.url,
          rss,
          stop: () =>
            new Promise<void>((done) => {
              const kill = setTimeout(() => proc.kill('SIGKILL'), 15_000)
              proc.once('exit', () => {
                clearTimeout(kill)
                done()
              })
              proc.send('stop')
            }),
        })
      }
    })
  })
}

async function child(dataDir: string, urls: SandboxUrls): Promise<void> {
  const core = await openCore(dataDir, urls)
  const web = await startWebHost({ core, rendererRoot: join(repoRoot, 'out/renderer-web'), log: () => {} })
  await call(core, 'vault.unlock', { passphrase: BENCH_PASSPHRASE })
  const sample = () => {
    const m = process.memoryUsage()
    process.send?.({ type: 'rss', rss: m.rss, heap: m.heapUsed } satisfies FromChild)
  }
  const timer = setInterval(sample, 1000)
  process.send?.({ type: 'ready', url: web.url } satisfies FromChild)
  process.on('message', (m) => {
    if (m !== 'stop') return
    clearInterval(timer)
    void web
      .close()
      .then(() => core.close())
      .finally(() => process.exit(0))
  })
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain && process.argv[2] === '--host-child') await child(process.argv[3]!, JSON.parse(process.argv[4]!) as SandboxUrls)
