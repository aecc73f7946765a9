/**
 * The mempool and the block loop: admitted writes wait here with their nonces reserved, and each
 * block executes them in order, pushes its events to the listeners, then settles every waiter.
 */
import { concat, keccak256, numberToHex, type Address } from 'viem'
import { RETAINED_BLOCKS } from './defaults'
import type { ParsedEnvelope } from './envelope'
import { forcedFailureFor } from './fault-injection'
import type { BlockCtx } from './matching'
import { pruneWithdrawNonces } from './owner-actions'
import type { ServiceCore } from './service-core'
import { executeTx, type ExecResult, type PendingTx } from './tx-execution'
import type { BlockEvents } from './types'

function emptyEvents(height: number, timeMs: number): BlockEvents {
  return { height, timeMs, trades: [], orderUpdates: [], fills: [], transfers: [], touchedMarkets: new Set(), touchedUsers: new Set() }
}

export class BlockProducer {
  private queue: PendingTx[] = []
  private readonly pendingNonces = new Map<Address, Set<bigint>>()
  /** `owner:withdraw_nonce` of queued withdrawals, so a second one with the same nonce is refused at admission. */
  readonly pendingWithdrawNonces = new Set<string>()
  private readonly listeners = new Set<(b: BlockEvents) => void>()
  /** Accounts credited by the faucet since the last block (pushed as touched in the next one). */
  readonly depositedSinceLastBlock = new Set<Address>()

  constructor(private readonly core: ServiceCore) {}

  get pendingCount(): number {
    return this.queue.length
  }

  isNoncePending(authority: Address, nonce: bigint): boolean {
    return this.pendingNonces.get(authority)?.has(nonce) ?? false
  }

  onBlock(listener: (b: BlockEvents) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Queues an admitted write; resolves with its outcome once a block has executed it. */
  enqueue(p: ParsedEnvelope, authority: Address, owner: Address): Promise<ExecResult> {
    let set = this.pendingNonces.get(authority)
    if (!set) {
      set = new Set()
      this.pendingNonces.set(authority, set)
    }
    set.add(p.nonce)
    if (p.action.type === 'withdraw') this.pendingWithdrawNonces.add(`${owner}:${p.action.withdraw_nonce}`)
    const forced = forcedFailureFor(this.core, p)
    return new Promise<ExecResult>((settle) => this.queue.push({ parsed: p, authority, owner, settle, forced }))
  }

  produceBlock(): BlockEvents {
    const { state, faults, feeAccount, now } = this.core
    const txs = this.queue
    this.queue = []
    const height = state.height + 1
    const timeMs = Math.max(now(), state.timeMs)
    state.height = height
    state.timeMs = timeMs
    const events = emptyEvents(height, timeMs)
    // Faucet deposits land in this block, like a bridge deposit would: their accounts are touched.
    for (const a of this.depositedSinceLastBlock) events.touchedUsers.add(a)
    this.depositedSinceLastBlock.clear()
    const ctx: BlockCtx = {
      state,
      height,
      timeMs,
      staleMarks: faults.staleMarks,
      events,
      feeAccount,
      feesActive: !faults.feesInactive,
      vaultPayouts: !faults.vaultPayoutsInactive,
    }
    const results: [PendingTx, ExecResult][] = []
    txs.forEach((tx, i) => {
      this.pendingNonces.get(tx.authority)?.delete(tx.parsed.nonce)
      if (tx.parsed.action.type === 'withdraw') this.pendingWithdrawNonces.delete(`${tx.owner}:${tx.parsed.action.withdraw_nonce}`)
      let r: ExecResult
      try {
        r = executeTx(this.core, ctx, tx, i)
      } catch {
        r = { submission: 'rejected', code: 'MalformedTx' }
      }
      results.push([tx, r])
    })
    state.appHash = keccak256(concat([state.appHash, numberToHex(height, { size: 8 }), ...txs.map((t) => t.parsed.txHash)]))
    if (height % 1000 === 0) this.prune()
    for (const l of this.listeners) {
      try {
        l(events)
      } catch {
        // a listener's failure must not stop the chain
      }
    }
    for (const [tx, r] of results) tx.settle(r)
    return events
  }

  /** Drops terminal status records older than the retained window, and expired withdraw nonces. */
  prune(): void {
    const { state } = this.core
    const floor = state.earliestRetainedHeight(RETAINED_BLOCKS)
    for (const [oid, rec] of state.statusByOid) {
      if (rec.height < floor && rec.order.remaining === 0n) state.statusByOid.delete(oid)
    }
    for (const [k, tx] of state.txByCloid) if (tx.height < floor) state.txByCloid.delete(k)
    pruneWithdrawNonces(state, state.timeMs)
  }
}
