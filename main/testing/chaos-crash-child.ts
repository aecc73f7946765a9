/**
 * Child process of the chaos crash suite: performs ONE write of the kind named in CHAOS_CASE
 * through the desk's own service functions and is killed (SIGKILL, no cleanup) at its step:
 *   afterJournal  - the signed write is in the journal, nothing handed to the network
 *   afterSend     - the request is on the wire, its answer never read
 *   afterAnswer   - the answer arrived, not yet recorded in the journal
 * Env: CHAOS_CASE (JSON: kind, step, keys, params), DATA_DIR, TRADING_URL, EARN_URL, WS_URL.
 * Prints `journaled <id> <key>` when the write reached the journal.
 */
import { request } from 'node:http'
import type { Hex } from 'viem'
import { sandboxNetwork, type ResolvedNetwork } from '../core/config/networks'
import { InfoClient } from '../core/exchange/info/client'
import { RateScheduler } from '../core/exchange/scheduler'
import { postJson, type HttpPoster } from '../core/exchange/trade/http-post'
import { openJournal, type Journal } from '../core/journal'
import { WriteSide } from '../core/session/write-side'
import {
  activateFor,
  approveAgent,
  cancelAllInMarket,
  cancelEarnWithdrawal,
  cancelOrder,
  claimEarnWithdrawal,
  createEarnWithdrawal,
  emergencyCancelAll,
  placeOrder,
  repay,
  revokeAgent,
  settle,
  transfer,
  withdraw,
} from './direct-writes'
import { DevVault } from './dev-vault'

export type CrashStep = 'afterJournal' | 'afterSend' | 'afterAnswer'
export type WriteKind =
  | 'settle'
  | 'repay'
  | 'transfer'
  | 'withdraw'
  | 'order'
  | 'cancelOid'
  | 'cancelCloid'
  | 'cancelBatch'
  | 'cancelAll'
  | 'emergencyCancelAll'
  | 'activate'
  | 'agentApprove'
  | 'agentRevoke'
  | 'earnCreate'
  | 'earnClaim'
  | 'earnCancel'
  | 'earnInstant'

export interface CrashCase {
  kind: WriteKind
  step: CrashStep
  /** Owner private keys the child's vault holds (the first one signs). */
  keys: Hex[]
  /** Kind-specific: `to`, `oid`, `oids`, `cloid`, `operationId`, `target`, `dstChainId`. */
  params: Record<string, string>
}

const env = process.env
const c = JSON.parse(env.CHAOS_CASE!) as CrashCase
const die = (): never => {
  process.kill(process.pid, 'SIGKILL')
  throw new Error('unreachable')
}
const isWrite = (url: string, body: string) => url.endsWith('/trade') || (url.includes('/api/v3/earn') && body.includes('"user_signature"'))

const post: HttpPoster = async (url, body, opts) => {
  if (!isWrite(url, body)) return postJson(url, body, opts)
  if (c.step === 'afterSend') {
    // The whole request goes to the kernel, the answer is never read, then the process dies.
    const u = new URL(url)
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    })
    req.on('error', () => {})
    req.on('finish', () => setTimeout(die, 30))
    req.end(body)
    return new Promise<never>(() => {})
  }
  const answer = await postJson(url, body, opts)
  if (c.step === 'afterAnswer') die()
  return answer
}

const journal: Journal = openJournal(env.DATA_DIR!)
if (c.step === 'afterJournal') {
  // Die the moment the signed write is on disk.
  const record = journal.record.bind(journal)
  journal.record = ((...a: Parameters<Journal['record']>) => {
    const s = record(...a)
    process.stdout.write(`journaled ${s.id} ${s.key}\n`)
    return die()
  }) as Journal['record']
} else {
  journal.onChange((s) => {
    if (s.state === 'signed') process.stdout.write(`journaled ${s.id} ${s.key}\n`)
  })
}
const vault = new DevVault()
const [owner] = c.keys.map((k) => vault.addOwner(k))
const network = { ...sandboxNetwork(), tradingUrl: env.TRADING_URL!, wsUrl: env.WS_URL!, earnUrl: env.EARN_URL! } as ResolvedNetwork
const info = new InfoClient({ baseUrl: network.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
const ws = new WriteSide({
  network,
  journal,
  vault,
  info,
  post,
  tradeScheduler: new RateScheduler({ ratePerSec: 1000 }),
  expiresInMs: 3000,
})
const ctx = ws.ctx
const p = c.params
const o = owner!

async function run(): Promise<unknown> {
  switch (c.kind) {
    case 'settle':
      return settle(ctx, { from: o, to: p.to!, asset: 'BTC', amount: '0.01' })
    case 'repay':
      return repay(ctx, { from: o, to: p.to!, asset: 'USDC', amount: '10' })
    case 'transfer':
      return transfer(ctx, { from: o, to: p.to!, asset: 'USDC', amount: '1.5' })
    case 'withdraw':
      return withdraw(ctx, { account: o, asset: 'USDC', amount: '100', dstChainId: p.dstChainId!, dstAddress: o })
    case 'order':
      return placeOrder(ctx, { account: o, market: 1, side: 'bid', orderType: 'limit', tif: 'gtc', price: '30000', quantity: '0.01' })
    case 'cancelOid':
      return cancelOrder(ctx, { account: o, market: 1, oid: p.oid! })
    case 'cancelCloid':
      return cancelOrder(ctx, { account: o, market: 1, cloid: p.cloid! })
    case 'cancelBatch':
      return ws.submitter.submit({
        account: o,
        signer: { owner: o, role: 'owner' },
        action: { type: 'batch', items: p.oids!.split(',').map((oid) => ({ type: 'cancel' as const, market_id: '1', oid })) },
        summary: 'chaos batch cancel',
      })
    case 'cancelAll':
      return cancelAllInMarket(ctx, { account: o, market: 1 })
    case 'emergencyCancelAll':
      return emergencyCancelAll(ctx, { account: o })
    case 'activate':
      return activateFor(ctx, { from: o, target: p.target!, asset: 'USDC' })
    case 'agentApprove':
      return approveAgent(ctx, { owner: o, slot: 0 })
    case 'agentRevoke':
      return revokeAgent(ctx, { owner: o, slot: 0 })
    case 'earnCreate':
      return createEarnWithdrawal(ws.earnCtx, { user: o, asset: 'USDC', amount: '10', type: 'scheduled' })
    case 'earnInstant':
      return createEarnWithdrawal(ws.earnCtx, { user: o, asset: 'USDC', amount: '10', type: 'instant' })
    case 'earnClaim':
      return claimEarnWithdrawal(ws.earnCtx, { user: o, operationId: p.operationId! })
    case 'earnCancel':
      return cancelEarnWithdrawal(ws.earnCtx, { user: o, operationId: p.operationId! })
  }
}

try {
  await run()
  process.stdout.write('finished without crashing\n')
} catch (e) {
  process.stdout.write(`write threw before the crash point: ${(e as { code?: string }).code ?? ''} ${(e as Error).message}\n`)
}
process.exit(3)
