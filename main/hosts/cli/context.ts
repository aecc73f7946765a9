/**
 * What a command sees: parsed options, output helpers (human or `--json`), and the ways to obtain
 * secrets (a file named by an option, else a hidden TTY prompt) and the shared vault.
 */
import { promises as fs } from 'node:fs'
import { defaultDataDir } from '../../core/config/paths'
import { DeskError } from '../../core/errors/desk-error'
import { Vault, vaultPath } from '../../core/vault'
import { CliConfirmer } from './confirmer'
import type { CliIo } from './io'
import type { OptionSpec } from './router'

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  'data-dir': { type: 'string', valueName: 'DIR', description: 'data directory (default: the desktop app\'s)' },
  'passphrase-file': { type: 'string', valueName: 'FILE', description: 'read the vault passphrase from FILE instead of prompting' },
  json: { type: 'boolean', description: 'print JSON instead of text' },
  yes: { type: 'boolean', description: 'confirm without prompting (non-interactive use)' },
  help: { type: 'boolean', description: 'show help' },
}

export interface GlobalOptions {
  dataDir: string | undefined
  json: boolean
  passphraseFile: string | undefined
  yes: boolean
}

/** Secret files are small; anything bigger is a mistake (wrong file), not a passphrase. */
const MAX_SECRET_FILE_BYTES = 64 * 1024

export class CliContext {
  private confirmerInstance: CliConfirmer | null = null

  constructor(
    readonly io: CliIo,
    readonly globals: GlobalOptions,
    readonly options: Record<string, string | boolean | undefined>,
    readonly positionals: string[],
  ) {}

  get dataDir(): string {
    return this.globals.dataDir ?? defaultDataDir()
  }

  get vaultPath(): string {
    return vaultPath(this.dataDir)
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
    if (this.globals.json) this.io.stdout(JSON.stringify(json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) + '\n')
    else this.io.stdout((Array.isArray(human) ? human.join('\n') : human) + '\n')
  }

  /** Reads a secret file: its content without one trailing newline. */
  async readSecretFile(path: string, what: string): Promise<string> {
    let buf: Buffer
    try {
      const st = await fs.stat(path)
      if (!st.isFile() || st.size > MAX_SECRET_FILE_BYTES) throw new DeskError('SecretFileInvalid', `${what} file ${path} is not a small regular file`)
      buf = await fs.readFile(path)
    } catch (e) {
      if (e instanceof DeskError) throw e
      throw new DeskError('SecretFileUnreadable', `cannot read the ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
    }
    const text = buf.toString('utf8').replace(/\r?\n$/, '')
    buf.fill(0)
    if (text === '') throw new DeskError('SecretFileInvalid', `the ${what} file ${path} is empty`)
    return text
  }

  /** A secret from `--<option> FILE`, else a hidden prompt (asked twice when `confirm`). */
  async secret(option: string | undefined, prompt: string, what: string, confirm = false): Promise<string> {
    const file = option === undefined ? undefined : option === 'passphrase-file' ? this.globals.passphraseFile : this.string(option)
    if (file !== undefined) return this.readSecretFile(file, what)
    if (!this.io.isInteractive()) throw new DeskError('NoTerminal', `no terminal to ask for the ${what}; use --${option ?? 'passphrase-file'} FILE`)
    const first = await this.io.promptHidden(prompt)
    if (confirm) {
      const again = await this.io.promptHidden('Repeat: ')
      if (again !== first) throw new DeskError('PassphraseMismatch', `the two ${what} entries differ`)
    }
    return first
  }

  vaultPassphrase(): Promise<string> {
    return this.secret('passphrase-file', 'Vault passphrase: ', 'vault passphrase')
  }

  /** The host's confirmation prompt for owner-key actions (`--yes` + passphrase file when not interactive). */
  confirmer(): CliConfirmer {
    this.confirmerInstance ??= new CliConfirmer(this.io, { yes: this.globals.yes, passphrase: () => this.vaultPassphrase() })
    return this.confirmerInstance
  }

  /** The shared vault, locked. Auto-lock is off: the process ends with the command. */
  openVault(): Promise<Vault> {
    return Vault.open({ path: this.vaultPath, autoLockMs: null, confirmer: this.confirmer() })
  }

  /** The shared vault, unlocked with the operator's passphrase. */
  async unlockedVault(): Promise<Vault> {
    const vault = await this.openVault()
    await vault.unlock(await this.vaultPassphrase())
    return vault
  }

  /** Asks "yes" on the TTY, or accepts `--yes`; anything else refuses. */
  async confirmYes(question: string): Promise<void> {
    if (this.globals.yes) return
    if (!this.io.isInteractive()) throw new DeskError('ConfirmationUnavailable', `${question} Pass --yes to confirm without a terminal`)
    const answer = await this.io.promptLine(`${question} Type "yes" to confirm: `)
    if (answer.trim().toLowerCase() !== 'yes') throw new DeskError('ConfirmationDeclined', 'not confirmed; nothing changed')
  }
}
