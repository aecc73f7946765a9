/**
 * What a command sees: parsed options, output helpers (human or `--json`), the core (attached
 * to the running app, or in-process) and the ways to name secrets (a file main reads, else a
 * hidden TTY prompt). Owner-key confirmations pushed by the core for this desk are answered here.
 */
import { resolve } from 'node:path'
import type { ChannelArgs, ChannelName, ChannelResult } from '../../contract/channels'
import type { CliSecret, ConfirmRequest } from '../../contract/types'
import { DeskError } from '../../contract/errors'
import { formatAccount } from '../../contract/format'
import { defaultDataDir, openCoreClient, readSecretFile, type CoreClient } from './core-client'
import { deskVersion } from './version'
import type { CliIo } from './io'
import type { OptionSpec } from './option-spec'

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  'data-dir': { type: 'string', valueName: 'DIR', description: "data directory (default: the desktop app's)" },
  'passphrase-file': { type: 'string', valueName: 'FILE', description: 'read the vault passphrase from FILE instead of prompting' },
  json: { type: 'boolean', description: 'print JSON instead of text' },
  yes: { type: 'boolean', description: 'confirm without prompting (non-interactive use)' },
  help: { type: 'boolean', description: 'show help' },
  version: { type: 'boolean', description: 'print the desk version' },
}

export interface GlobalOptions {
  dataDir: string | undefined
  json: boolean
  passphraseFile: string | undefined
  yes: boolean
}

export class CliContext {
  private client: Promise<CoreClient> | null = null
  /** Serialises the operator's answers (one prompt at a time). */
  private confirmQueue: Promise<void> = Promise.resolve()
  /** Set when a confirmation had to be declined for want of a terminal (reported as ConfirmationUnavailable). */
  private confirmUnavailable = false

  constructor(
    readonly io: CliIo,
    readonly globals: GlobalOptions,
    readonly options: Record<string, string | boolean | undefined>,
    readonly positionals: string[],
  ) {}

  get dataDir(): string {
    return this.globals.dataDir ?? defaultDataDir()
  }

  string(name: string): string | undefined {
    const v = this.options[name]
    return typeof v === 'string' ? v : undefined
  }

  flag(name: string): boolean {
    return this.options[name] === true
  }

  /** Prints `human` lines, or `json` as one JSON document with --json. */
  print(human: string | string[], json: unknown): void {
    this.noteOutcomes(json)
    if (this.globals.json) this.io.stdout(JSON.stringify(json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) + '\n')
    else this.io.stdout((Array.isArray(human) ? human.join('\n') : human) + '\n')
  }

  private worstExit = 0

  /**
   * A write whose outcome is not a success must not exit 0: rejected or refused 1, failed at
   * execution 3, unknown or unresolved (being reconciled; check before any new attempt) 4.
   */
  private noteOutcomes(json: unknown): void {
    const seen = new Set<unknown>()
    const visit = (v: unknown, depth: number): void => {
      if (typeof v !== 'object' || v === null || depth > 4 || seen.has(v)) return
      seen.add(v)
      if (Array.isArray(v)) return v.forEach((x) => visit(x, depth + 1))
      const o = v as Record<string, unknown>
      if (o.outcome && typeof o.outcome === 'object' && typeof (o.outcome as { state?: unknown }).state === 'string') {
        this.worstExit = worseExit(this.worstExit, exitForState((o.outcome as { state: string }).state))
      }
      for (const x of Object.values(o)) visit(x, depth + 1)
    }
    visit(json, 0)
  }

  /** The exit code the printed results call for (0 when every write succeeded). */
  get exitCode(): number {
    return this.worstExit
  }

  /** A command's own verdict (a broken chain, an unresolved entry): the exit code it documents, never overwritten by a later success. */
  fail(code: number): void {
    this.worstExit = worseExit(this.worstExit, code)
  }

  /** A secret from `--<option> FILE`, else a hidden prompt (asked twice when `confirm`). */
  async secret(option: string | undefined, prompt: string, what: string, confirm = false, hint = option): Promise<string> {
    const file = option === undefined ? undefined : option === 'passphrase-file' ? this.globals.passphraseFile : this.string(option)
    if (file !== undefined) return readSecretFile(file, what)
    if (!this.io.isInteractive())
      throw new DeskError('NoTerminal', `no terminal to ask for the ${what}; use --${hint ?? 'passphrase-file'} FILE`)
    const first = await this.io.promptHidden(prompt)
    if (confirm) {
      const again = await this.io.promptHidden('Repeat: ')
      if (again !== first) throw new DeskError('PassphraseMismatch', `the two ${what} entries differ`)
    }
    return first
  }

  /** The core: attached to the app running on the data directory, else in-process under its lock. */
  core(): Promise<CoreClient> {
    this.client ??= openCoreClient(this.dataDir).then((c) => {
      // An app of another version may read or write the data directory differently: say so, once.
      if (c.mode.mode === 'attached' && c.version && c.version !== deskVersion()) {
        this.io.stderr(
          `desk: warning: the running app is version ${c.version}, this desk is ${deskVersion()}; use the desk that ships with the app\n`,
        )
      }
      c.onEvent((event, payload) => {
        if (event !== 'confirm.request') return
        const req = payload as ConfirmRequest
        // Only this desk's requests (the attach server sends no other; in-process every 'cli' one is ours).
        if (req.origin !== 'cli') return
        this.confirmQueue = this.confirmQueue.then(() => this.answer(c, req)).catch(() => {})
      })
      return c
    })
    return this.client
  }

  /** Calls a contract channel through the core; a failure becomes the typed DeskError. */
  async call<N extends ChannelName>(channel: N, args: ChannelArgs<N>): Promise<ChannelResult<N>> {
    const c = await this.core()
    const r = await c.dispatch(channel, args)
    if (r.ok) return r.value as ChannelResult<N>
    if (this.confirmUnavailable && r.error.code === 'ConfirmationDeclined') {
      throw new DeskError(
        'ConfirmationUnavailable',
        'this action needs confirmation: run it in a terminal, or pass --yes with --passphrase-file',
      )
    }
    throw new DeskError(r.error.code, r.error.message, r.error.details)
  }

  async close(): Promise<void> {
    const c = this.client
    this.client = null
    if (c) await (await c.catch(() => null))?.close()
  }

  /** The owner-key confirmation: the summary built in main on stderr, then the TTY or `--yes`. */
  private async answer(c: CoreClient, req: ConfirmRequest): Promise<void> {
    this.io.stderr(confirmationText(req))
    const respond = (approved: boolean, passphrase?: string) =>
      c.dispatch('confirm.respond', { id: req.id, approved, ...(passphrase !== undefined ? { passphrase } : {}) })
    try {
      if (this.globals.yes) {
        await respond(true, req.needsPassphrase ? await this.passphraseText() : undefined)
        return
      }
      if (!this.io.isInteractive()) {
        this.confirmUnavailable = true
        await respond(false)
        return
      }
      const answer = await this.io.promptLine('Sign and send this? Type "yes" to confirm: ')
      if (answer.trim().toLowerCase() !== 'yes') return void (await respond(false))
      await respond(true, req.needsPassphrase ? await this.io.promptHidden('Vault passphrase: ') : undefined)
    } catch {
      await respond(false)
    }
  }

  /** The vault passphrase as text: `--passphrase-file`, else the hidden prompt (channels that take it as an argument). */
  async passphraseText(): Promise<string> {
    if (this.globals.passphraseFile !== undefined) return readSecretFile(this.globals.passphraseFile, 'vault passphrase')
    return this.io.promptHidden('Vault passphrase: ')
  }

  /**
   * The passphrase a guarded settings change carries, asked once; a locked vault is unlocked with
   * it first, since on a team desk the change is judged by the team policy, whose store the vault
   * opens (the core checks the passphrase again for the change itself).
   */
  async passphraseUnlocking(): Promise<string> {
    const passphrase = await this.passphraseText()
    const state = await this.call('app.state', undefined)
    if (state.vault.exists && !state.vault.unlocked) await this.call('vault.unlock', { passphrase })
    return passphrase
  }

  /**
   * A secret for the core: `--<option> FILE` (an absolute path main reads itself), else the
   * hidden prompt (asked twice when `confirm`), else NoTerminal.
   */
  async secretRef(option: string, prompt: string, what: string, confirm = false): Promise<CliSecret> {
    const file = option === 'passphrase-file' ? this.globals.passphraseFile : this.string(option)
    if (file !== undefined) return { file: resolve(file) }
    return { value: await this.secret(undefined, prompt, what, confirm, option) }
  }

  vaultPassphraseRef(): Promise<CliSecret> {
    return this.secretRef('passphrase-file', 'Vault passphrase: ', 'vault passphrase')
  }

  /** The vault passphrase when the core's vault is locked; nothing when it is unlocked (the app's state). */
  async unlockRef(): Promise<{ unlock?: CliSecret }> {
    const state = await this.call('app.state', undefined)
    return state.vault.unlocked ? {} : { unlock: await this.vaultPassphraseRef() }
  }

  /**
   * The call context of the app's channels: `--network NAME`, when given, must name the selected
   * network (the core serves one network; the app and every desk share it), checked before anything runs.
   */
  async requireSelectedNetwork(): Promise<void> {
    const name = this.string('network')
    if (name === undefined) return
    const { selected, networks } = await this.call('networks.list', undefined)
    const n = networks.find((x) => x.name === name)
    if (!n)
      throw new DeskError('UnknownNetwork', `no network named "${name}" (known: ${networks.map((x) => x.name).join(', ')})`, {
        network: name,
      })
    if (!n.configured) {
      const missing = (['tradingUrl', 'wsUrl', 'earnUrl'] as const).filter((k) => !n[k])
      throw new DeskError(
        'NetworkNotConfigured',
        `network "${n.name}" has no ${missing.join(', ')} yet; set them with \`desk networks set ${n.name} ...\` or in Settings`,
        { network: n.name, missing: missing.join(',') },
      )
    }
    if (n.name !== selected) {
      throw new DeskError(
        'NetworkNotSelected',
        `"${n.name}" is not the selected network (${selected}); select it first with \`desk networks select ${n.name}\``,
        { network: n.name },
      )
    }
  }

  /**
   * Before the app's channels that sign or read through the write side: the network check, then
   * the vault unlocked (the app's unlock state when it is unlocked already, else with the
   * passphrase from --passphrase-file or the hidden prompt, through `vault.unlock`).
   */
  async unlocked(): Promise<void> {
    await this.requireSelectedNetwork()
    const state = await this.call('app.state', undefined)
    // No vault: the core's vault.keys refuses with VaultNotFound naming its vault file (one home for the path).
    if (!state.vault.exists) await this.call('vault.keys', undefined)
    if (state.vault.unlocked) return
    // --passphrase-file, else the hidden prompt, else NoTerminal (never a bare prompt failure).
    await this.call('vault.unlock', { passphrase: await this.secret('passphrase-file', 'Vault passphrase: ', 'vault passphrase') })
  }

  /** Asks "yes" on the TTY, or accepts `--yes`; anything else refuses. */
  async confirmYes(question: string): Promise<void> {
    if (this.globals.yes) return
    if (!this.io.isInteractive()) throw new DeskError('ConfirmationUnavailable', `${question} Pass --yes to confirm without a terminal`)
    const answer = await this.io.promptLine(`${question} Type "yes" to confirm: `)
    if (answer.trim().toLowerCase() !== 'yes') throw new DeskError('ConfirmationDeclined', 'not confirmed; nothing changed')
  }
}

/** Exit code for a journal state: success 0, rejected 1, failed 3, not settled (unknown, unresolved, in flight) 4. */
/**
 * Exit codes (README): 0 success; 1 refused or rejected; 3 failed at execution; 4 outcome unknown or
 * unresolved; 5 proposed (a team proposal waits for approvals: nothing signed or sent).
 */
export function exitForState(state: string): number {
  if (state === 'accepted' || state === 'reconciled') return 0
  if (state === 'rejected') return 1
  if (state === 'failed') return 3
  if (state === 'proposed') return EXIT_PROPOSED
  return 4
}

export const EXIT_PROPOSED = 5

/** Which exit wins when a command printed several results: an unknown outcome first, a proposal last. */
const EXIT_RANK: Record<number, number> = { 0: 0, 5: 1, 1: 2, 3: 3, 4: 4 }
export const worseExit = (a: number, b: number) => ((EXIT_RANK[b] ?? 5) > (EXIT_RANK[a] ?? 5) ? b : a)

/** What the prompt shows: main's summary, then the key that will sign (as the app's dialog names it). */
export function confirmationText(req: ConfirmRequest): string {
  const lines = [`== ${req.title} ==`, ...req.summary.map((l) => `  ${l}`)]
  const signer = req.details?.signer
  if (signer) {
    const key = signer.role === 'agent' ? `agent key${signer.slot !== undefined ? ` in slot ${signer.slot}` : ''}` : 'owner key'
    lines.push(
      `  signed by: ${formatAccount({ address: signer.address, label: signer.label }).text}, ${key}` +
        `${signer.owner.toLowerCase() !== signer.address.toLowerCase() ? ` of ${formatAccount(signer.owner).text}` : ''} (${signer.address})`,
    )
  }
  return [...lines, ''].join('\n')
}
