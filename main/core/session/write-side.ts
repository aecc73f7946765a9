import type { Address, Hex, TypedDataDefinition } from 'viem'
import type { ResolvedNetwork } from '../config/networks'
import { EarnClient, type EarnClientOptions, type EarnWriteResult } from '../exchange/earn/earn-client'
import type { Submission } from '../journal'
import type { InfoClient } from '../exchange/info/client'
import type { RateScheduler } from '../exchange/scheduler'
import type { HttpPoster } from '../exchange/trade/http-post'
import { HeightFloor, infoTradeReads } from '../exchange/trade/info-reads'
import { TradeReconciler, type TradeReads } from '../exchange/trade/reconciler'
import { vaultTradeSigner, type TradeSigner, type VaultSigningSurface } from '../exchange/trade/signer'
import { TradeSubmitter, type SubmitRequest } from '../exchange/trade/submitter'
import type { Journal } from '../journal'
import type { AgentSlot, SignerRef } from '../vault/types'
import { infoAccountReads, type AccountReads } from './account-reads'
import { LiveAccountReads } from './live-reads'
import type { EarnServiceContext, WriteContext } from './write-context'
import { requireOwnerOrderConfirmation, type AgentKeyStore } from './trading-signer'
import type { SigningIntent } from '../vault/signing-policy'

/** The vault surface the write side needs (the real Vault satisfies it). */
export interface WriteVault extends VaultSigningSurface {
  /** With an intent, an owner-key signature passes the vault's confirmation gate first (an owner-key order). */
  signLegacy(ref: SignerRef, payload: Uint8Array, intent?: SigningIntent): Promise<Hex>
  generateAgentKey(owner: Address, slot: AgentSlot, options?: { replace?: boolean }): Promise<Address>
  retireAgentKey(owner: Address, slot: AgentSlot): Promise<Address>
  /** Accounts in the vault; `watchOnly` ones hold no key. Readable while locked. */
  listAccounts(): { address: Address; watchOnly: boolean }[]
}

export interface WriteSideOptions {
  network: ResolvedNetwork
  journal: Journal
  vault: WriteVault
  /** The network's typed /info client (its scheduler is the host's /info budget). */
  info: InfoClient
  /** The /trade budget of this host (shared by every session of the process). */
  tradeScheduler: RateScheduler
  /** Test hooks. */
  post?: HttpPoster
  reads?: AccountReads
  tradeReads?: TradeReads
  now?: () => number
  expiresInMs?: number
  expiryGraceMs?: number
  reconcileMinAgeMs?: number
  earnOperationDeadlineMs?: number
}

export interface ReconcileReport {
  trade: { checked: number; resolved: number; pending: number; failed: number }
  earn: { checked: number; resolved: number; pending: number; failed: number }
}

/**
 * Everything that writes, for one network: the /trade submitter and its reconciler, the earn
 * client, and the contexts the services take. `reconcileAll()` runs on start and after every
 * reconnect; `start()` keeps reconciling in the background until nothing is unresolved.
 */
export class WriteSide {
  readonly network: ResolvedNetwork
  readonly journal: Journal
  readonly submitter: TradeSubmitter
  readonly reconciler: TradeReconciler
  readonly earn: EarnClient
  /** The same earn client stopping after sign + journal: the write pipeline sends its entries itself, after the decision's last word. */
  readonly earnSigning: EarnSigningClient
  readonly reads: AccountReads
  readonly tradeScheduler: RateScheduler
  private earnTimer: ReturnType<typeof setTimeout> | undefined
  private stopped = true
  /** The service's height as last seen: a write's floor without a read of its own. */
  private readonly heights: HeightFloor

  constructor(private readonly o: WriteSideOptions) {
    this.heights = new HeightFloor(o.info, o.now ?? Date.now)
    this.network = o.network
    this.journal = o.journal
    this.tradeScheduler = o.tradeScheduler
    this.reads = o.reads ?? infoAccountReads(o.info)
    this.submitter = new OwnerGatedSubmitter({
      network: o.network.name,
      tradeUrl: o.network.tradingUrl.replace(/\/+$/, '') + '/trade',
      chainId: o.network.chainId,
      journal: o.journal,
      signer: freshAtSigning(ownerGatedSigner(o.vault), () => (this.reads instanceof LiveAccountReads ? this.reads : null)),
      scheduler: this.tradeScheduler,
      ...(o.post ? { post: o.post } : {}),
      ...(o.now ? { now: o.now } : {}),
      ...(o.expiresInMs ? { expiresInMs: o.expiresInMs } : {}),
      // The service's height before signing: what proves later that a lost write is inside the lookback window.
      heightFloor: this.heights.get,
      onUnknown: () => this.reconciler.kick(),
    })
    this.reconciler = new TradeReconciler({
      network: o.network.name,
      journal: o.journal,
      reads: o.tradeReads ?? infoTradeReads(o.info, this.heights),
      inFlight: this.submitter.inFlight,
      ...(o.now ? { now: o.now } : {}),
      ...(o.expiryGraceMs !== undefined ? { expiryGraceMs: o.expiryGraceMs } : {}),
      ...(o.reconcileMinAgeMs !== undefined ? { minAgeMs: o.reconcileMinAgeMs } : {}),
    })
    const earnOptions: EarnClientOptions = {
      poolUrl: o.network.earnUrl,
      network: o.network.name,
      journal: o.journal,
      signer: { signTypedData: (ref, td: TypedDataDefinition, intent) => o.vault.signTypedData(ref, td, intent) },
      ...(o.post ? { post: o.post } : {}),
      ...(o.now ? { now: o.now } : {}),
      ...(o.earnOperationDeadlineMs ? { operationDeadlineMs: o.earnOperationDeadlineMs } : {}),
    }
    this.earn = new EarnClient(earnOptions)
    this.earnSigning = new EarnSigningClient(earnOptions)
  }

  private keys(): AgentKeyStore {
    const v = this.o.vault
    return {
      agentAddress: (owner, slot) => v.addressOf({ owner, role: 'agent', slot }),
      generateAgentKey: (owner, slot, opts) => v.generateAgentKey(owner, slot, opts),
      retireAgentKey: (owner, slot) => v.retireAgentKey(owner, slot),
    }
  }

  /** The vault holds a key for this owner (locked or not: signing itself reports VaultLocked). */
  private hasOwnerKey = (owner: Address): boolean => {
    const a = this.o.vault.listAccounts().find((x) => x.address.toLowerCase() === owner.toLowerCase())
    return a !== undefined && !a.watchOnly
  }

  /** Context for settle/repay, transfers, orders and agents services. */
  get ctx(): WriteContext & { keys: AgentKeyStore } {
    return {
      network: this.network.name,
      journal: this.journal,
      submitter: this.submitter,
      reads: this.reads,
      hasOwnerKey: this.hasOwnerKey,
      keys: this.keys(),
    }
  }

  get earnCtx(): EarnServiceContext {
    return { earn: this.earn, hasOwnerKey: this.hasOwnerKey, ...(this.o.now ? { now: this.o.now } : {}) }
  }

  /** One pass over every unresolved entry of this network (trade by cloid, earn by operation id). */
  async reconcileAll(): Promise<ReconcileReport> {
    const trade = await this.reconciler.reconcileOnce()
    const earn = { checked: 0, resolved: 0, pending: 0, failed: 0 }
    for (const s of this.journal.unresolved(this.network.name).filter((x) => x.channel === 'earn')) {
      earn.checked++
      try {
        if (await this.earn.reconcileEntry(s, this.o.expiryGraceMs ?? 30_000, this.o.reconcileMinAgeMs ?? 20_000)) earn.resolved++
        else earn.pending++
      } catch {
        earn.failed++
        earn.pending++
      }
    }
    return { trade, earn }
  }

  /** Reconciles now and keeps reconciling in the background (call again after a reconnect: `kick`). */
  start(intervalMs = 2000): void {
    this.stopped = false
    // The first write then finds a height floor already known (background lane: nobody waits on it).
    this.heights.prime()
    this.reconciler.start(intervalMs)
    const tick = async () => {
      if (this.stopped) return
      const pending = this.journal.unresolved(this.network.name).filter((x) => x.channel === 'earn')
      for (const s of pending)
        await this.earn.reconcileEntry(s, this.o.expiryGraceMs ?? 30_000, this.o.reconcileMinAgeMs ?? 20_000).catch(() => false)
      if (!this.stopped) this.earnTimer = setTimeout(tick, intervalMs * (pending.length > 0 ? 1 : 5))
    }
    void tick()
  }

  /** After a reconnect: reconcile unresolved entries soon. */
  kick(): void {
    this.reconciler.kick()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.earnTimer) clearTimeout(this.earnTimer)
    await this.reconciler.stop()
  }
}

const ADDRESS_IN_TEXT = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g
/** Writes checked and previewed against live balances and positions (an agent approval is not). */
const VALUE_MOVES = new Set(['transfer', 'withdraw', 'settle', 'repay', 'activateFor'])

/**
 * A confirmed write's data is judged again at signing time: the confirmation dialog may have
 * stayed open for minutes while the stream was down, and the checks and the preview were made
 * on what was current then. Checked before the confirmation (nothing to ask about) and again
 * once the operator approved, before the signature leaves the signer: a refusal throws
 * `StaleData` there, so nothing is journaled or sent (the submitter journals only a returned
 * signature). Only gated owner-key writes that move value are judged (an order is banded and
 * valued again by the guardrails before it is confirmed; an agent approval does not rest on balances).
 */
export function freshAtSigning(inner: TradeSigner, reads: () => LiveAccountReads | null): TradeSigner {
  return {
    authority: (ref) => inner.authority(ref),
    sign: async (ref, req, intent) => {
      const r = intent && VALUE_MOVES.has(intent.action) ? reads() : null
      if (!r || !intent) return inner.sign(ref, req, intent)
      const accounts = [...new Set([...JSON.stringify(intent.details ?? {}).matchAll(ADDRESS_IN_TEXT)].map((m) => m[0].toLowerCase()))]
      r.assertFresh(accounts)
      const signature = await inner.sign(ref, req, intent)
      r.assertFresh(accounts)
      return signature
    },
  }
}

/**
 * The vault as the submitter's signer, with the confirmation of an owner-key order: a legacy
 * (trading) action carrying an intent is signed through the vault's gate (the dialog, the
 * passphrase when due); every other one as the exchange adapter signs it.
 */
function ownerGatedSigner(vault: WriteVault): TradeSigner {
  const inner = vaultTradeSigner(vault)
  return {
    authority: (ref) => inner.authority(ref),
    sign: (ref, req, intent) =>
      req.scheme === 'legacy' && intent ? vault.signLegacy(ref, req.payload, intent) : inner.sign(ref, req, intent),
  }
}

/**
 * The submitter every write of every host signs through: an owner-key order without the
 * operator's confirmation is refused before it is signed or journaled (trading-signer.ts).
 */
class OwnerGatedSubmitter extends TradeSubmitter {
  override prepare(req: SubmitRequest): Promise<Submission> {
    try {
      requireOwnerOrderConfirmation(req)
    } catch (e) {
      return Promise.reject(e)
    }
    return super.prepare(req)
  }
}

const PENDING = Symbol('pending earn write')

/**
 * The earn client's writes up to the journal only: every path that would send an entry (a new
 * signature, or the resend of a journaled one) hands it back instead, so the write pipeline can
 * ask its decision step before the bytes leave; paths that settle without sending return as usual.
 */
export class EarnSigningClient extends EarnClient {
  override sendWrite(entry: Submission): Promise<EarnWriteResult> {
    return Promise.resolve({ submission: entry, operationId: entry.key, record: null, [PENDING]: true } as EarnWriteResult)
  }

  /** Did `r` come back unsent from `sendWrite` above? */
  static pendingOf(r: EarnWriteResult): Submission | null {
    return (r as EarnWriteResult & { [PENDING]?: true })[PENDING] ? r.submission : null
  }
}
