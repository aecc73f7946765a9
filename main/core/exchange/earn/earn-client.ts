import type { Address, Hex, TypedDataDefinition } from 'viem'
import { DeskError } from '../../errors/desk-error'
import type { Journal, Submission } from '../../journal'
import type { SigningIntent } from '../../vault/signing-policy'
import type { SignerRef } from '../../vault/types'
import {
  earnTypedData,
  type DepositEntry,
  type EarnAccount,
  type EarnConfig,
  type EarnCursor,
  type EarnDataOf,
  type EarnPage,
  type WithdrawalDetail,
  type WithdrawalRecord,
  type WithdrawalStatus,
  type WithdrawType,
  type YieldEntry,
} from '../../wire/earn'
import type { Lane } from '../scheduler'
import { adviceForCode as adviceFor } from '../../../contract/advice'
import { EarnError, EarnHttp, type EarnHttpOptions } from './earn-http'
import { deadlineOf, payoutAdvice, writeEffect, type EarnWriteResult, type WriteType } from './earn-outcome'
import { EARN_PAGE_LIMIT, pageBody, walk } from './earn-paging'
import { sendEarnWrite } from './earn-send'

export { payoutAdvice, type EarnWriteResult } from './earn-outcome'
export { EARN_PAGE_LIMIT, walk } from './earn-paging'

/** Signs earn typed data with an owner key (the vault, behind its confirmation gate). */
export interface EarnSigner {
  signTypedData(ref: SignerRef, typedData: TypedDataDefinition, intent?: SigningIntent): Promise<Hex>
}

export interface EarnClientOptions extends EarnHttpOptions {
  /** Network name in the journal. */
  network: string
  journal: Journal
  signer: EarnSigner
  /** Deadline of a create (ms from signing). Default 10 minutes. */
  createDeadlineMs?: number
  /** Deadline of a cancel (ms from signing). Default 1 hour (a cancel only works before claimable_at anyway). */
  operationDeadlineMs?: number
  /**
   * Deadline of the one claim signature an operation ever gets (ms from signing). Its bytes
   * are resent until then; after it the desk never signs again, so it must outlast outages of
   * the pool, the network and the desk itself. Default 7 days.
   */
  claimDeadlineMs?: number
  /** Sends of the same bytes before an earn write is left to the reconciler as unknown. Default 6. */
  maxAttempts?: number
  /** Told about earn writes whose outcome became unknown (the reconciler picks them up). */
  onUnknown?: (s: Submission) => void
}

/**
 * The earn pool: the six reads (paged ones walked to the end) and the three signed writes,
 * each journaled by its operation id before it is sent and resent byte-identical on retry.
 */
export class EarnClient {
  readonly http: EarnHttp
  readonly network: string
  private readonly createDeadlineMs: number
  private readonly operationDeadlineMs: number
  private readonly claimDeadlineMs: number
  private readonly maxAttempts: number
  /** Journal ids this process is sending right now (reconciliation leaves them alone). */
  readonly inFlight = new Set<number>()

  constructor(private readonly o: EarnClientOptions) {
    this.http = new EarnHttp(o)
    this.network = o.network
    this.createDeadlineMs = o.createDeadlineMs ?? 10 * 60_000
    this.operationDeadlineMs = o.operationDeadlineMs ?? 60 * 60_000
    // 7 days: a claim signature is bound for ever (earn-api §5), so its validity must cover a
    // long pool outage, a weekend without the operator, and a desk restart; resending identical
    // bytes of an already-settled claim is harmless (the pool answers "not claimable").
    this.claimDeadlineMs = o.claimDeadlineMs ?? 7 * 24 * 3600_000
    this.maxAttempts = o.maxAttempts ?? 6
  }

  // --- reads ---------------------------------------------------------------------------------

  config(lane?: Lane): Promise<EarnConfig> {
    return this.http.read('config', {}, { lane })
  }

  account(user: string, lane?: Lane): Promise<EarnAccount> {
    return this.http.read('account', { user_address: user }, { lane })
  }

  withdrawal(user: string, operationId: string, lane?: Lane): Promise<WithdrawalDetail | null> {
    return this.http.read('withdrawal', { user_address: user, operation_id: operationId }, { lane }).catch((e: unknown) => {
      if (e instanceof EarnError && e.code === 'EarnInvalid' && /withdrawal not found/.test(String(e.details?.poolMessage))) return null
      throw e
    })
  }

  async depositsPage(user: string, q: { assetId?: number; beforeId?: EarnCursor; limit?: number } = {}): Promise<EarnPage<DepositEntry>> {
    return this.http.read('deposits', pageBody(user, q))
  }

  async yieldPage(user: string, q: { assetId?: number; beforeId?: EarnCursor; limit?: number } = {}): Promise<EarnPage<YieldEntry>> {
    return this.http.read('yieldHistory', pageBody(user, q))
  }

  async withdrawalsPage(
    user: string,
    q: { assetId?: number; status?: WithdrawalStatus; beforeId?: EarnCursor; limit?: number } = {},
  ): Promise<EarnPage<WithdrawalRecord>> {
    return this.http.read('withdrawals', { ...pageBody(user, q), ...(q.status ? { status: q.status } : {}) })
  }

  /** Every deposit (walked to the end: a full last page is confirmed by one more request). */
  deposits(user: string, q: { assetId?: number } = {}): Promise<DepositEntry[]> {
    return walk((beforeId) => this.depositsPage(user, { ...q, beforeId, limit: EARN_PAGE_LIMIT }))
  }

  yieldHistory(user: string, q: { assetId?: number } = {}): Promise<YieldEntry[]> {
    return walk((beforeId) => this.yieldPage(user, { ...q, beforeId, limit: EARN_PAGE_LIMIT }))
  }

  withdrawals(user: string, q: { assetId?: number; status?: WithdrawalStatus } = {}): Promise<WithdrawalRecord[]> {
    return walk((beforeId) => this.withdrawalsPage(user, { ...q, beforeId, limit: EARN_PAGE_LIMIT }))
  }

  // --- writes --------------------------------------------------------------------------------

  /**
   * Creates a withdrawal with the account's `next_user_nonce`. Journaled under its operation id
   * (`withdraw:<user>:<nonce>`) before sending; a retried create resends the same bytes, and a
   * create that executed but whose answer was lost is recognised by reading the operation back.
   */
  async createWithdrawal(req: {
    user: Address
    signer: SignerRef
    assetId: number
    amount: bigint
    type: WithdrawType
    summary: string
    intent?: SigningIntent
  }): Promise<EarnWriteResult> {
    if (req.amount <= 0n) throw new DeskError('InvalidAmount', 'the withdrawal amount must be greater than zero')
    const [config, account] = await Promise.all([this.config('operator'), this.account(req.user, 'operator')])
    const user = req.user.toLowerCase()
    // An earlier create still being settled, or unresolved without an operator acknowledgement, blocks a new one.
    const inFlight = this.o.journal
      .list({
        network: this.network,
        account: user,
        channel: 'earn',
        actionType: 'createWithdrawal',
        state: ['signed', 'sent', 'unknown', 'unresolved'],
      })
      .filter((e) => e.acknowledgedAt === null)
    if (inFlight.length > 0) {
      throw new DeskError(
        'EarnWriteInFlight',
        `an earlier withdrawal (${inFlight[0]!.key}) has no final outcome yet; it is being reconciled`,
        { journalId: inFlight[0]!.id, operationId: inFlight[0]!.key },
      )
    }
    const nonce = account.next_user_nonce
    const operationId = `withdraw:${user}:${nonce}`
    const deadline = this.http.now() + this.createDeadlineMs
    const fields = {
      user_address: user,
      user_nonce: nonce,
      withdraw_type: req.type,
      asset_id: req.assetId,
      amount: req.amount.toString(),
      deadline_unix_ms: deadline,
    }
    const td = earnTypedData('CreateWithdrawal', fields, config.eip712_domain, config.native_chain_id)
    const signature = await this.o.signer.signTypedData(req.signer, td as unknown as TypedDataDefinition, req.intent)
    const body = JSON.stringify({ type: 'createWithdrawal', ...fields, user_signature: signature })
    const entry = this.o.journal.record({
      channel: 'earn',
      key: operationId,
      network: this.network,
      account: user,
      signer: user,
      actionType: 'createWithdrawal',
      summary: req.summary,
      nonce: null,
      businessNonce: String(nonce),
      body,
    })
    return this.sendWrite(entry)
  }

  /**
   * Claims a scheduled withdrawal. The first claim's signed bytes are kept in the journal and
   * resent byte-identical on every retry; a second claim is never signed while the first can
   * still be used (its deadline has not passed and it was not refused).
   */
  async claimWithdrawal(req: {
    user: Address
    signer: SignerRef
    operationId: string
    summary: string
    intent?: SigningIntent
  }): Promise<EarnWriteResult> {
    return this.operationWrite('claimWithdrawal', req)
  }

  async cancelWithdrawal(req: {
    user: Address
    signer: SignerRef
    operationId: string
    summary: string
    intent?: SigningIntent
  }): Promise<EarnWriteResult> {
    return this.operationWrite('cancelWithdrawal', req)
  }

  private async operationWrite(
    type: 'claimWithdrawal' | 'cancelWithdrawal',
    req: { user: Address; signer: SignerRef; operationId: string; summary: string; intent?: SigningIntent },
  ): Promise<EarnWriteResult> {
    const user = req.user.toLowerCase()
    if (
      !/^withdraw:0x[0-9a-f]{40}:(0|[1-9][0-9]*)$/.test(req.operationId.toLowerCase()) ||
      !req.operationId.toLowerCase().startsWith(`withdraw:${user}:`)
    ) {
      throw new DeskError('InvalidOperationId', `operation id must be withdraw:${user}:<nonce>`, {
        operationId: req.operationId.slice(0, 120),
      })
    }
    const prior = this.o.journal.list({ network: this.network, key: req.operationId, actionType: type })
    const signedClaim = type === 'claimWithdrawal' ? prior.find((p) => p.body.includes('"user_signature"')) : undefined
    if (signedClaim && deadlineOf(signedClaim) <= this.http.now() + 5000) {
      // The one claim signature expired: learn what happened from the withdrawal; never sign again.
      const rec = await this.withdrawal(user, req.operationId, 'operator')
      const done = prior.find(
        (p) => (p.state === 'accepted' || p.state === 'reconciled') && !['notexecuted', 'notsent'].includes(p.finalStatus ?? ''),
      )
      if (rec && writeEffect('claimWithdrawal', rec, signedClaim))
        return { submission: done ?? signedClaim, operationId: req.operationId, record: rec }
      throw new DeskError(
        'EarnClaimExpired',
        `the claim signed for ${req.operationId} expired (withdrawal ${rec?.status ?? 'not found'}); the desk never signs a second claim. ` +
          `${adviceFor('EarnDeadlinePassed')}`,
        {
          operationId: req.operationId,
          journalId: signedClaim.id,
          withdrawalStatus: rec?.status ?? null,
        },
      )
    }
    const live = prior.find((p) => p.state === 'signed' || p.state === 'sent' || p.state === 'unknown')
    if (live) return this.sendWrite(live)
    const reusable = prior.find(
      (p) => (p.state === 'accepted' || p.state === 'reconciled') && p.finalStatus !== 'notexecuted' && p.finalStatus !== 'notsent',
    )
    if (reusable)
      return { submission: reusable, operationId: req.operationId, record: await this.withdrawal(user, req.operationId, 'operator') }
    if (type === 'claimWithdrawal') {
      // The first claim binds its digest (earn-api §5): one claim signature per operation, ever
      // (an expired one was handled above).
      if (signedClaim) {
        // Still valid: send its exact bytes again (as a new journal entry), never a new signature.
        const again = this.o.journal.record({
          channel: 'earn',
          key: req.operationId,
          network: this.network,
          account: user,
          signer: user,
          actionType: type,
          summary: `${req.summary} (resending the first claim's bytes)`,
          nonce: null,
          body: signedClaim.body,
        })
        return this.sendWrite(again)
      }
      // Never bind a claim signature the pool must refuse: check the withdrawal first.
      const rec = await this.withdrawal(user, req.operationId, 'operator')
      if (!rec) throw new DeskError('WithdrawalNotFound', `no withdrawal ${req.operationId} for ${user}`, { operationId: req.operationId })
      if (rec.status !== 'queued' || rec.claimable_at_unix_ms === null || rec.claimable_at_unix_ms > this.http.now()) {
        throw new DeskError(
          'WithdrawalNotClaimable',
          `withdrawal ${req.operationId} is ` +
            `${rec.status}${rec.claimable_at_unix_ms ? `, claimable from ${new Date(rec.claimable_at_unix_ms).toISOString()}` : ''}; nothing was ` +
            `signed`,
          {
            operationId: req.operationId,
            status: rec.status,
            claimableAt: rec.claimable_at_unix_ms,
          },
        )
      }
    }
    const config = await this.config('operator')
    const deadline = this.http.now() + (type === 'claimWithdrawal' ? this.claimDeadlineMs : this.operationDeadlineMs)
    const fields = { user_address: user, operation_id: req.operationId, deadline_unix_ms: deadline }
    const kind = type === 'claimWithdrawal' ? 'ClaimWithdrawal' : 'CancelWithdrawal'
    const td = earnTypedData(kind, fields, config.eip712_domain, config.native_chain_id)
    const signature = await this.o.signer.signTypedData(req.signer, td as unknown as TypedDataDefinition, req.intent)
    const body = JSON.stringify({ type, ...fields, user_signature: signature })
    const entry = this.o.journal.record({
      channel: 'earn',
      key: req.operationId,
      network: this.network,
      account: user,
      signer: user,
      actionType: type,
      summary: req.summary,
      nonce: null,
      body,
    })
    return this.sendWrite(entry)
  }

  /** Sends a journaled earn write (or resends its exact bytes) until a final answer. */
  sendWrite(entry: Submission): Promise<EarnWriteResult> {
    return sendEarnWrite(
      {
        http: this.http,
        journal: this.o.journal,
        inFlight: this.inFlight,
        maxAttempts: this.maxAttempts,
        onUnknown: this.o.onUnknown,
        observe: (e, lane) => this.observe(e, lane),
      },
      entry,
    )
  }

  /**
   * Reads the operation back and, when it shows this write took effect, records it as
   * reconciled. Returns null when the write has not (yet) taken effect.
   */
  async observe(entry: Submission, lane: Lane = 'reconcile'): Promise<EarnWriteResult | null> {
    const rec = await this.withdrawal(entry.account, entry.key, lane)
    const effect = writeEffect(entry.actionType as WriteType, rec, entry)
    if (!effect) return null
    const s = this.o.journal.update(entry.id, {
      state: 'reconciled',
      finalStatus: rec!.status,
      note: `read back: withdrawal ${rec!.status}`,
      advice: payoutAdvice(rec!),
    })
    return { submission: s, operationId: entry.key, record: rec }
  }

  /**
   * Reconciles one unresolved earn entry: final when the operation shows the write's effect,
   * or when its deadline has passed without it (it can no longer execute).
   */
  async reconcileEntry(entry: Submission, graceMs = 30_000, minAgeMs = 20_000): Promise<boolean> {
    if (this.inFlight.has(entry.id)) return false
    // Another process (desk and the app share the journal) may be sending a young entry.
    if (entry.state !== 'unknown' && this.http.now() - entry.updatedAt < minAgeMs) return false
    if (entry.state === 'signed') {
      this.o.journal.update(entry.id, { state: 'reconciled', finalStatus: 'notsent', note: 'never sent (interrupted before sending)' })
      return true
    }
    if (await this.observe(entry)) return true
    if (deadlineOf(entry) + graceMs < this.http.now()) {
      const rec = entry.actionType === 'createWithdrawal' ? null : await this.withdrawal(entry.account, entry.key)
      if (entry.actionType !== 'createWithdrawal' && !rec) {
        // The withdrawal itself is gone from view: nothing proves what the write did.
        const advice = `Read withdrawal ${entry.key} on the pool (withdrawals list) and the account balances before acting again.`
        const u = this.o.journal.update(entry.id, {
          state: 'unresolved',
          finalStatus: 'unresolved',
          advice,
          evidence: JSON.stringify({ checkedAtMs: this.http.now(), checks: [`withdrawal(${entry.key}): not found`] }),
          note: 'deadline passed; the withdrawal cannot be read',
        })
        this.o.onUnknown?.(u)
        return true
      }
      // The withdrawal record is authoritative and not windowed: no effect by now means none ever.
      this.o.journal.update(entry.id, {
        state: 'reconciled',
        finalStatus: 'notexecuted',
        note: `deadline passed without effect${rec ? ` (withdrawal ${rec.status})` : ''}`,
      })
      return true
    }
    return false
  }
}

export type { EarnDataOf }
