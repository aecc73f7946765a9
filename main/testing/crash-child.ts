/**
 * Child process of the crash tests: submits one transfer and is killed (SIGKILL, no cleanup)
 * at the step named by CRASH_STEP:
 *   afterJournal  - journaled (signed) but not yet sent
 *   afterSend     - the request is on the wire, no answer yet
 *   afterResponse - the answer arrived, not yet recorded in the journal
 * Env: CRASH_STEP, DATA_DIR, TRADING_URL, EARN_URL, WS_URL, OWNER_KEY, TO.
 */
import { request } from 'node:http'
import type { Address, Hex } from 'viem'
import { sandboxNetwork, type ResolvedNetwork } from '../core/config/networks'
import { InfoClient } from '../core/exchange/info/client'
import { RateScheduler } from '../core/exchange/scheduler'
import { postJson, type HttpPoster } from '../core/exchange/trade/http-post'
import { openJournal } from '../core/journal'
import { DevVault } from './dev-vault'
import { WriteSide } from '../core/session/write-side'

const env = process.env
const step = env.CRASH_STEP as 'afterJournal' | 'afterSend' | 'afterResponse'
const die = () => process.kill(process.pid, 'SIGKILL')

const post: HttpPoster = async (url, body, opts) => {
  if (!url.endsWith('/trade')) return postJson(url, body, opts)
  if (step === 'afterSend') {
    // Hand the whole request to the kernel, never read the answer, and die: however slow this
    // machine is, the journal cannot have recorded an outcome.
    const u = new URL(url)
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    })
    req.on('error', () => {})
    req.on('finish', () => setTimeout(die, 20))
    req.end(body)
    return new Promise<never>(() => {})
  }
  const answer = postJson(url, body, opts)
  if (step === 'afterResponse') {
    await answer
    die()
  }
  return answer
}

const journal = openJournal(env.DATA_DIR!)
const vault = new DevVault()
const owner = vault.addOwner(env.OWNER_KEY as Hex)
const network = { ...sandboxNetwork(), tradingUrl: env.TRADING_URL!, wsUrl: env.WS_URL!, earnUrl: env.EARN_URL! } as ResolvedNetwork
const info = new InfoClient({ baseUrl: network.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
const session = new WriteSide({
  network,
  journal,
  vault,
  info,
  post,
  tradeScheduler: new RateScheduler({ ratePerSec: 1000 }),
  expiresInMs: 3000,
})

const req = {
  account: owner,
  signer: { owner, role: 'owner' as const },
  action: { type: 'transfer' as const, to: env.TO as Address, asset_id: '1', amount: '1000000' } as never,
  summary: `crash test ${step}`,
}
const entry = await session.submitter.prepare(req)
process.stdout.write(`journaled ${entry.id} ${entry.key}\n`)
if (step === 'afterJournal') die()
await session.submitter.send(entry)
process.stdout.write('finished without crashing\n')
