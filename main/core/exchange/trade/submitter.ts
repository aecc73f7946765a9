import type { Address } from 'viem'
import { DeskError } from '../../errors/desk-error'
import type { Journal, Submission } from '../../journal'
import { NonceConflictError } from '../../journal'
import type { SigningIntent } from '../../vault/signing-policy'
import { signingRequest, type TradeAction, type TradeEnvelope } from '../../wire'
import { KeyedMutex, NonceAllocator } from '../nonces'
import type { Lane, TaskControl } from '../scheduler'
import { classifyTradeAnswer, type Leaf, type TradeOutcome } from './classify'
import { withCloid } from './cloid'
import { TradeFailedError, TradeNeverSentError, TradeOutcomeUnknownError, TradeRejectedError } from './errors'
import { postJson, TransportFailure, type HttpAnswer, type HttpPoster } from './http-post'
import type { SignerRef, TradeSigner } from './signer'

/** The slice of RateScheduler the submitter uses. */
export interface SchedulerLike {
  run<T>(lane: Lane, task: (control?: TaskControl) => Promise<T>, label?: string): Promise<T>
  pauseFor(ms: number): void
}

export interface TradeSubmitterOptions {
  /** Network name as stored in the journal. */
  network: string
  /** Full URL of POST /trade. */
  tradeUrl: string
  chainId: number
  journal: Journal
  signer: TradeSigner
  /** The /trade rate budget of this host (independent of /info). */
  scheduler: SchedulerLike
  post?: HttpPoster
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  /** Client timeout per request; the service can take up to 10 s, so it must exceed that. Default 15 s. */
  clientTimeoutMs?: number
  /** Envelopes expire this long after signing (`expires_after_ms`); bounds how long an unknown outcome can stay open. Default 120 s. */
  expiresInMs?: number
  /** Hand-offs of the same bytes before giving up on a never-executed outcome. Default 6. */
  maxAttempts?: number
  /** Told about entries whose outcome became unknown (the reconciler picks them up). */
  onUnknown?: (s: Submission) => void
  /**
   * A block height at or below the service's current one, read before signing (queryStatus's
   * `query_height`, or the latest height seen in any answer: heights only grow, so any earlier
   * observation is a valid lower bound). Journaled as `submitHeight`; it is what later proves a
   * lost write is still inside txStatusByCloid's lookback window. Without it (or when it
   * fails) a lost write past its expiry ends `unresolved`, never `notexecuted`.
   */
  heightFloor?: () => Promise<bigint | null>
}

export interface SubmitRequest {
  /** The owner account the action is for. */
  account: Address
  signer: SignerRef
  /** Required for agent-signed actions: the slot's epoch from userAgents. */
  agentEpoch?: bigint
  action: TradeAction
  /** One line for the journal and the operator. */
  summary: string
  /** Shown by the vault's confirmation gate for owner-key fund-moving actions. */
  intent?: SigningIntent
  /** A withdraw gets its business nonce allocated (and persisted) with the envelope nonce. */
  allocateWithdrawNonce?: boolean
  lane?: Lane
}

export interface SubmitResult {
  submission: Submission
  /** Key the journal files the entry under (the action's cloid when it carries one). */
  key: string
  txHash: string | null
  traceId: string | null
  /** Every order outcome of an accepted response; per-order failures are `error` leaves. */
  leaves: Leaf[]
}

const MIN_CLIENT_TIMEOUT_MS = 10_500

/**
 * Signs and sends /trade writes. Each write is journaled with its exact signed body and nonce
 * before it is sent; the same bytes are resent only when the service says they never executed
 * (Unavailable, throttling, a request that never left this process). An outcome that may have
 * executed is recorded as `unknown` and left to the reconciler: never re-signed.
 */
export class TradeSubmitter {
  readonly network: string
  private readonly nonces: NonceAllocator
  private readonly mutex = new KeyedMutex()
  private readonly post: HttpPoster
  private readonly now: () => number
  private readonly sleep: (ms: number) => Promise<void>
  private readonly clientTimeoutMs: number
  private readonly expiresInMs: number
  private readonly maxAttempts: number
  /** Journal ids being sent by this process right now (the reconciler leaves them alone). */
  readonly inFlight = new Set<number>()

  constructor(private readonly o: TradeSubmitterOptions) {
    this.network = o.network
    this.now = o.now ?? Date.now
    this.nonces = new NonceAllocator(o.journal, this.now)
    this.post = o.post ?? postJson
    this.sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)))
    this.clientTimeoutMs = o.clientTimeoutMs ?? 15_000
    if (this.clientTimeoutMs < MIN_CLIENT_TIMEOUT_MS)
      throw new DeskError('InvalidConfig', `the /trade client timeout must exceed 10 s (got ${this.clientTimeoutMs} ms)`)
    this.expiresInMs = o.expiresInMs ?? 120_000
    this.maxAttempts = o.maxAttempts ?? 6
  }

  /** Journals (signed, with a fresh nonce) then sends; resolves on `accepted`, throws a typed error otherwise. */
  async submit(req: SubmitRequest): Promise<SubmitResult> {
    const entry = await this.prepare(req)
    return this.send(entry, req.lane ?? 'operator')
  }

  /** Sign and journal only (state `signed`); `send` hands it to the network. Split for crash tests. */
  async prepare(req: SubmitRequest): Promise<Submission> {
    if (req.signer.role === 'agent' && req.agentEpoch === undefined) {
      throw new DeskError('AgentEpochRequired', 'an agent-signed write needs the slot epoch from userAgents', { slot: req.signer.slot })
    }
    const { action: withId, key } = withCloid(req.action)
    const authority = await this.o.signer.authority(req.signer)
    const mutexKey = `${this.network}|${authority.toLowerCase()}`
    return this.mutex.run(mutexKey, async () => {
      assertCloidFree(this.o.journal, this.network, key)
      const submitHeight = await this.readHeightFloor()
      for (let tries = 0; ; tries++) {
        let action = withId
        let businessNonce: string | null = null
        if (req.allocateWithdrawNonce && action.type === 'withdraw') {
          businessNonce = this.nonces.next(this.network, req.account, 'withdraw').toString()
          action = { ...action, withdraw_nonce: businessNonce }
        } else if (action.type === 'withdraw') {
          businessNonce = action.withdraw_nonce
        }
        const nonce = this.nonces.next(this.network, authority)
        const expires = BigInt(this.now() + this.expiresInMs)
        const unsigned = { action, nonce, agentEpoch: req.signer.role === 'agent' ? req.agentEpoch : undefined, expiresAfterMs: expires }
        const sreq = signingRequest(unsigned, this.o.chainId)
        // The confirmation shows the account and the exact action that will be signed.
        const intent = req.intent
          ? { ...req.intent, details: { ...req.intent.details, account: { name: '', address: req.account }, action: jsonAction(action) } }
          : undefined
        const signature = await this.o.signer.sign(req.signer, sreq, intent)
        const envelope: TradeEnvelope = { action, nonce: nonce.toString() }
        if (unsigned.agentEpoch !== undefined) envelope.agent_epoch = unsigned.agentEpoch.toString()
        envelope.expires_after_ms = expires.toString()
        if (sreq.scheme === 'eip712') envelope.auth_scheme = 'eip712'
        envelope.signature = signature
        try {
          return this.o.journal.record({
            channel: 'trade',
            key,
            network: this.network,
            account: req.account,
            signer: authority,
            actionType: action.type,
            summary: req.summary,
            nonce: nonce.toString(),
            businessNonce,
            body: JSON.stringify(envelope),
            submitHeight,
          })
        } catch (e) {
          // Another process sharing the journal took this nonce first: sign again with a new one.
          if (e instanceof NonceConflictError && tries < 3) continue
          throw e
        }
      }
    })
  }

  private async readHeightFloor(): Promise<string | null> {
    if (!this.o.heightFloor) return null
    try {
      const h = await this.o.heightFloor()
      return h === null ? null : h.toString()
    } catch {
      // Without a height the write can still be sent; a lost answer then ends unresolved.
      return null
    }
  }

  /** Sends a journaled entry (state `signed`, or `sent` when resuming) and records the outcome. */
  async send(entry: Submission, lane: Lane = 'operator'): Promise<SubmitResult> {
    const release = this.o.journal.hold()
    this.inFlight.add(entry.id)
    try {
      return await this.sendLoop(entry, lane)
    } finally {
      this.inFlight.delete(entry.id)
      release()
    }
  }

  private details(s: Submission, extra: Record<string, string | number | null> = {}) {
    return { journalId: s.id, cloid: s.key, actionType: s.actionType, nonce: s.nonce, ...extra }
  }

  private expiresAt(s: Submission): number {
    try {
      const env = JSON.parse(s.body) as TradeEnvelope
      return env.expires_after_ms !== undefined ? Number(env.expires_after_ms) : Infinity
    } catch {
      return Infinity
    }
  }

  private async sendLoop(entry: Submission, lane: Lane): Promise<SubmitResult> {
    const j = this.o.journal
    let lastNeverExecuted = 'NotSent'
    let traceId: string | null = null
    const expiresAt = this.expiresAt(entry)
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      let answer: HttpAnswer
      try {
        answer = await this.o.scheduler.run(
          lane,
          async (control) => {
            // The `sent` mark is on disk before the first byte leaves: after a crash an entry
            // still `signed` was provably never sent. A compare-and-set too: an entry another
            // process already resolved throws here and is not sent.
            j.update(entry.id, { state: 'sent', attempt: true, note: attempt > 1 ? `attempt ${attempt}, same signed bytes` : null })
            // The budget counts the service's token from when the bytes are on the socket.
            return this.post(this.o.tradeUrl, entry.body, { timeoutMs: this.clientTimeoutMs, onWritten: () => control?.onSocket() })
          },
          `${entry.actionType} ${entry.key}`,
        )
      } catch (e) {
        if (e instanceof TransportFailure && e.phase === 'beforeWrite') {
          lastNeverExecuted = 'NotSent'
          if (await this.waitBeforeResend(attempt, 250 * 2 ** (attempt - 1), expiresAt)) continue
          break
        }
        if (e instanceof TransportFailure) {
          const s = j.update(entry.id, {
            state: 'unknown',
            code: e.reason === 'timeout' ? 'ClientTimeout' : 'ConnectionLost',
            note: e.message,
          })
          this.o.onUnknown?.(s)
          throw new TradeOutcomeUnknownError(
            `the request was sent but its answer was lost (${e.message}); the journal will reconcile it by cloid`,
            this.details(s, { reason: e.reason }),
          )
        }
        if (e instanceof DeskError && e.code === 'SchedulerClosed') {
          lastNeverExecuted = 'NotSent'
          break
        }
        throw e
      }
      traceId = answer.headers['x-trace-id'] ?? traceId
      const outcome: TradeOutcome = classifyTradeAnswer(answer, actionOf(entry))
      switch (outcome.kind) {
        case 'accepted': {
          const firstError = outcome.leaves.find((l) => l.kind === 'error')
          const s = j.update(entry.id, {
            state: 'accepted',
            finalStatus: summariseLeaves(outcome.leaves),
            code: firstError && firstError.kind === 'error' ? firstError.code : null,
            txHash: outcome.txHash,
            traceId,
            response: answer.text,
          })
          return { submission: s, key: s.key, txHash: outcome.txHash, traceId, leaves: outcome.leaves }
        }
        case 'failed': {
          const s = j.update(entry.id, {
            state: 'failed',
            finalStatus: summariseLeaves(outcome.leaves),
            code: outcome.code,
            advice: outcome.advice,
            txHash: outcome.txHash,
            traceId,
            response: answer.text,
          })
          throw new TradeFailedError(
            outcome.code,
            outcome.advice,
            outcome.leaves,
            `the ${entry.actionType} executed and failed: ${outcome.code}`,
            this.details(s),
          )
        }
        case 'rejected': {
          const s = j.update(entry.id, {
            state: 'rejected',
            finalStatus: 'rejected',
            code: outcome.code,
            txHash: outcome.txHash,
            traceId,
            response: answer.text,
          })
          throw new TradeRejectedError(outcome.code, `the service rejected the ${entry.actionType}: ${outcome.code}`, this.details(s))
        }
        case 'unknown': {
          const s = j.update(entry.id, {
            state: 'unknown',
            code: outcome.code,
            txHash: outcome.txHash,
            traceId,
            response: answer.text,
            note: outcome.detail ?? null,
          })
          this.o.onUnknown?.(s)
          throw new TradeOutcomeUnknownError(
            `the outcome of the ${entry.actionType} is not known yet (${outcome.code}); the journal will reconcile it by cloid`,
            this.details(s, { reason: outcome.code }),
          )
        }
        case 'resendSame':
        case 'backoff': {
          lastNeverExecuted = outcome.code
          j.update(entry.id, {
            state: 'sent',
            code: outcome.code,
            traceId,
            note: `${outcome.code}: never executed; waiting ${outcome.delayMs} ms`,
          })
          if (outcome.code === 'RateLimited') this.o.scheduler.pauseFor(outcome.delayMs)
          const backoff = Math.max(outcome.delayMs, outcome.code === 'PlaceOrderSuspended' ? 1000 * attempt : 100 * 2 ** (attempt - 1))
          if (await this.waitBeforeResend(attempt, backoff, expiresAt)) continue
          break
        }
      }
      break
    }
    // Every attempt ended without executing: final, safe to try again with a new signature.
    const s = j.update(entry.id, {
      state: 'rejected',
      finalStatus: 'notexecuted',
      code: lastNeverExecuted,
      traceId,
      note: 'gave up resending; never executed',
    })
    if (lastNeverExecuted === 'PlaceOrderSuspended') {
      throw new TradeRejectedError(
        'PlaceOrderSuspended',
        'the service only accepts cancels at the moment (PlaceOrderSuspended); the order was not placed',
        this.details(s),
      )
    }
    throw new TradeNeverSentError(
      `the ${entry.actionType} was not executed (${lastNeverExecuted}); nothing changed, it can be submitted again`,
      this.details(s, { reason: lastNeverExecuted }),
    )
  }

  /** Sleeps before a resend; false when attempts run out or the envelope would expire first. */
  private async waitBeforeResend(attempt: number, delayMs: number, expiresAt: number): Promise<boolean> {
    if (attempt >= this.maxAttempts) return false
    const jittered = Math.round(Math.min(delayMs, 10_000) * (1 + Math.random() * 0.2))
    if (this.now() + jittered + 1000 >= expiresAt) return false
    await this.sleep(jittered)
    return true
  }
}

/** One word for the journal: the leaf kinds of an accepted response (`open`, `filled`, `error:tick`...). */
export function summariseLeaves(leaves: readonly Leaf[]): string {
  if (leaves.length === 0) return 'accepted'
  return leaves
    .map((l) => (l.kind === 'error' ? `error:${l.code}` : l.kind))
    .join(',')
    .slice(0, 200)
}

function actionOf(s: Submission): TradeAction | null {
  try {
    return (JSON.parse(s.body) as TradeEnvelope).action
  } catch {
    return null
  }
}

/**
 * Refuses a cloid the journal already holds for a write that is not settled, executed (with any
 * result), or unresolved without an operator acknowledgement: re-using it would either run
 * the same intent twice or make txStatusByCloid report the wrong transaction.
 */
export function assertCloidFree(journal: Journal, network: string, key: string): void {
  const b = journal.reuseBlocker(network, key)
  if (!b) return
  const d = { cloid: key, journalId: b.entry.id }
  if (b.reason === 'inflight')
    throw new DeskError('CloidInFlight', `cloid ${key} belongs to a write whose outcome is not final yet (journal #${b.entry.id})`, d)
  if (b.reason === 'unacknowledged') {
    throw new DeskError(
      'CloidUnresolved',
      `cloid ${key} belongs to an unresolved write (journal #${b.entry.id}); check it and acknowledge it in the journal before sending it again`,
      d,
    )
  }
  throw new DeskError('CloidAlreadyUsed', `cloid ${key} was already executed (journal #${b.entry.id}); a new write needs a new cloid`, d)
}

/** The action as plain JSON for display (integers as decimal strings, exactly as signed). */
function jsonAction(action: TradeAction): Record<string, unknown> {
  return JSON.parse(JSON.stringify(action, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>
}
