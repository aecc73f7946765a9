import { randomUUID } from 'node:crypto'
import type { ConfirmDetails, ConfirmSigner } from '../../contract/types'
import type { Confirmer, ConfirmationRequest, ConfirmationResponse } from '../vault/signing-policy'
import { currentCallContext } from './dispatch'
import type { EventHub } from './events'

/**
 * Every confirmation names the key that signs. The gate only ever asks for owner-key signatures
 * (agent-signed orders and every cancel are not gated), so when the write did not name its signer, it is the
 * owner key of the account it names.
 */
export function withSigner(r: ConfirmationRequest): ConfirmationRequest {
  const d = r.details as ConfirmDetails | undefined
  if (!d?.account || d.signer) return r
  const signer: ConfirmSigner = { role: 'owner', label: d.account.name, address: d.account.address, owner: d.account.address }
  return { ...r, details: { ...d, signer } }
}

interface Pending {
  resolve(response: ConfirmationResponse): void
  timer: ReturnType<typeof setTimeout>
}

/**
 * The GUI hosts' Confirmer: pushes a `confirm.request` event with the summary built in main,
 * and waits for the renderer's `confirm.respond` with the same id. Unanswered requests expire
 * as declined, so nothing is ever signed on a forgotten dialog.
 */
export class ConfirmBroker implements Confirmer {
  private readonly pending = new Map<string, Pending>()
  private decorate: (request: ConfirmationRequest) => ConfirmationRequest = (r) => r

  constructor(
    private readonly events: EventHub,
    private readonly timeoutMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds what every confirmation must name (network, accounts by name and address), built in main. */
  setContext(decorate: (request: ConfirmationRequest) => ConfirmationRequest): void {
    this.decorate = decorate
  }

  confirm(raw: ConfirmationRequest): Promise<ConfirmationResponse> {
    // The call that led here (AsyncLocalStorage through the handler's await chain): a desk
    // command answers only its own requests, and the app's window shows only the app's; the
    // policy checks it passed are shown in the dialog.
    const call = currentCallContext()
    const checks = call?.checks ?? []
    const d = raw.details as ConfirmDetails | undefined
    const amount =
      d?.amount && d.amount.usd === null && call?.amountUsd !== undefined ? { amount: { ...d.amount, usd: call.amountUsd } } : {}
    const request = withSigner(
      this.decorate(
        checks.length > 0 || 'amount' in amount
          ? { ...raw, details: { ...raw.details, ...amount, ...(checks.length > 0 ? { policyChecks: [...checks] } : {}) } }
          : raw,
      ),
    )
    const id = randomUUID()
    const origin = call?.host === 'cli' ? 'cli' : 'app'
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, { approved: false }, 'expired'), this.timeoutMs)
      this.pending.set(id, { resolve, timer })
      this.events.emit('confirm.request', {
        id,
        title: request.title,
        summary: request.summary,
        needsPassphrase: request.needsPassphrase,
        expiresAt: this.now() + this.timeoutMs,
        origin,
        ...(origin === 'cli' && call?.client !== undefined ? { client: call.client } : {}),
        // Built in main from the write itself (the vault passes it through untouched).
        ...(request.details ? { details: request.details as ConfirmDetails } : {}),
      })
    })
  }

  /** The renderer's answer; false when the id is unknown or already settled. */
  respond(id: string, response: ConfirmationResponse): boolean {
    return this.settle(id, response)
  }

  /** Declines everything outstanding (lock, shutdown). */
  cancelAll(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, { approved: false })
  }

  /** Resolves one request and tells every window it is closed (another window may have answered it). */
  private settle(id: string, response: ConfirmationResponse, outcome?: 'expired'): boolean {
    const p = this.pending.get(id)
    if (!p) return false
    this.pending.delete(id)
    clearTimeout(p.timer)
    p.resolve(response)
    this.events.emit('confirm.closed', { id, outcome: outcome ?? (response.approved ? 'approved' : 'declined') })
    return true
  }
}
