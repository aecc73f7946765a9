/**
 * The CLI's Confirmer for owner-key actions: prints the summary built in main to stderr, then
 * asks on the TTY (or accepts `--yes`), and supplies the passphrase when re-entry is due.
 */
import { DeskError } from '../../core/errors/desk-error'
import type { ConfirmationRequest, ConfirmationResponse, Confirmer } from '../../core/vault'
import type { CliIo } from './io'

export class CliConfirmer implements Confirmer {
  constructor(
    private readonly io: CliIo,
    private readonly options: { yes: boolean; passphrase: () => Promise<string> },
  ) {}

  async confirm(request: ConfirmationRequest): Promise<ConfirmationResponse> {
    this.io.stderr([`== ${request.title} ==`, ...request.summary.map((l) => `  ${l}`), ''].join('\n'))
    if (this.options.yes) {
      return request.needsPassphrase ? { approved: true, passphrase: await this.options.passphrase() } : { approved: true }
    }
    if (!this.io.isInteractive()) throw new DeskError('ConfirmationUnavailable', 'this action needs confirmation: run it in a terminal, or pass --yes with --passphrase-file')
    const answer = await this.io.promptLine('Sign and send this? Type "yes" to confirm: ')
    if (answer.trim().toLowerCase() !== 'yes') return { approved: false }
    if (!request.needsPassphrase) return { approved: true }
    return { approved: true, passphrase: await this.io.promptHidden('Vault passphrase: ') }
  }
}
