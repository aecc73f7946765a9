/**
 * The confirmation gate for owner-key actions that move funds, change authority or open exposure
 * (transfer, withdraw, settle, repay, approveAgent, revokeAgent, activateFor, earn writes, and
 * orders signed by the owner key; cancels only reduce exposure and never ask). Main builds a
 * human-readable summary; the host's Confirmer shows it (GUI dialog, CLI prompt) and, when the
 * last passphrase entry is older than the re-entry window, collects the passphrase again, which
 * is verified against the vault before anything is signed.
 */
import { vaultError } from './errors'

export interface ConfirmationRequest {
  title: string
  /** Lines describing exactly what will be signed, built in main (never by the renderer). */
  summary: string[]
  /** The operator must type the vault passphrase again. */
  needsPassphrase: boolean
  /** Structured fields for the dialog (see the contract's ConfirmDetails); filled further by the host's broker. */
  details?: Readonly<Record<string, unknown>>
}

export interface ConfirmationResponse {
  approved: boolean
  passphrase?: string
}

/** Implemented by each host: the GUI shows a dialog, the CLI prompts on the TTY or honours `--yes`. */
export interface Confirmer {
  confirm(request: ConfirmationRequest): Promise<ConfirmationResponse>
}

export type GatedAction =
  | 'transfer'
  | 'withdraw'
  | 'settle'
  | 'repay'
  | 'approveAgent'
  | 'revokeAgent'
  | 'activateFor'
  | 'earnCreateWithdrawal'
  | 'earnClaimWithdrawal'
  | 'earnCancelWithdrawal'
  /** an order signed by the owner key (no approved API key of the account is in the vault); agent-signed orders are not gated */
  | 'order'
  /** a team member's approval of a proposal: the second person's deliberate act (features/team) */
  | 'teamApproval'

/** What the caller in main says it is about to sign with an owner key. */
export interface SigningIntent {
  action: GatedAction
  title: string
  summary: string[]
  /** Structured fields for the confirmation dialog (account, counterparty, amount, exact action); opaque to the vault. */
  details?: Readonly<Record<string, unknown>>
}

export interface SigningPolicyOptions {
  /** A passphrase entry older than this must be repeated before an owner-key action. Default 5 minutes. */
  reentryWindowMs?: number
  now?: () => number
  verifyPassphrase: (passphrase: string) => Promise<boolean>
}

export const DEFAULT_REENTRY_WINDOW_MS = 5 * 60_000

export class SigningPolicy {
  private confirmer: Confirmer | null = null
  private lastPassphraseAt: number | null = null
  private reentryWindowMs: number
  private readonly now: () => number
  private readonly verify: (passphrase: string) => Promise<boolean>

  constructor(options: SigningPolicyOptions) {
    this.reentryWindowMs = options.reentryWindowMs ?? DEFAULT_REENTRY_WINDOW_MS
    this.now = options.now ?? Date.now
    this.verify = options.verifyPassphrase
  }

  setConfirmer(confirmer: Confirmer | null): void {
    this.confirmer = confirmer
  }

  setReentryWindowMs(ms: number): void {
    this.reentryWindowMs = ms
  }

  /** The operator just proved the passphrase (unlock, re-entry). */
  notePassphraseEntered(): void {
    this.lastPassphraseAt = this.now()
  }

  /** Forget the last entry (on lock). */
  reset(): void {
    this.lastPassphraseAt = null
  }

  needsPassphrase(): boolean {
    return this.lastPassphraseAt === null || this.now() - this.lastPassphraseAt > this.reentryWindowMs
  }

  /** Resolves when the operator approved (and re-entered a correct passphrase if due); throws otherwise. */
  async approve(intent: SigningIntent | undefined): Promise<void> {
    if (!intent || intent.summary.length === 0 || intent.title.trim() === '') {
      throw vaultError('ConfirmationRequired', 'an owner-key signature needs a summary for the operator to confirm')
    }
    if (!this.confirmer)
      throw vaultError('NoConfirmer', 'no confirmation prompt is available in this host, so owner-key actions cannot be signed')
    const needsPassphrase = this.needsPassphrase()
    const response = await this.confirmer.confirm({
      title: intent.title,
      summary: [...intent.summary],
      needsPassphrase,
      ...(intent.details ? { details: intent.details } : {}),
    })
    if (!response.approved) throw vaultError('ConfirmationDeclined', `the operator declined: ${intent.title}`, { action: intent.action })
    if (needsPassphrase) {
      if (response.passphrase === undefined || !(await this.verify(response.passphrase))) {
        throw vaultError('PassphraseIncorrect', 'the re-entered passphrase is wrong; nothing was signed', { action: intent.action })
      }
      this.notePassphraseEntered()
    }
  }
}
