/** `desk keys …`: key custody from the command line, over the same vault as the desktop app. */
import { promises as fs } from 'node:fs'
import { resolve } from 'node:path'
import type { VaultKeysView } from '../../../contract/types'
import { DeskError } from '../../../contract/errors'
import type { CliContext } from '../context'
import { defaultScrypt } from '../core-client'
import type { Command, CommandGroup, OptionSpec } from '../router'
import { UsageError } from '../router'
import { checksummedArg } from '../support/address'

const LABEL: OptionSpec = { type: 'string', valueName: 'TEXT', description: 'label shown for the account' }
const SCRYPT_N: OptionSpec = { type: 'string', valueName: 'N', description: `scrypt N, a power of two from 2^14 (default 2^18)` }
const KEYSTORE_PASS: OptionSpec = {
  type: 'string',
  valueName: 'FILE',
  description: "read the keystore's passphrase from FILE instead of prompting",
}

/** `--scrypt-n`, checked; undefined when not given (the vault's default cost applies). */
function scryptNFromOption(ctx: CliContext): number | undefined {
  const raw = ctx.string('scrypt-n')
  if (raw === undefined) return undefined
  const n = /^[0-9]{1,8}$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(n) || n < 2 ** 14 || n > 2 ** 22 || (n & (n - 1)) !== 0)
    throw new UsageError('--scrypt-n must be a power of two between 16384 and 4194304')
  return n
}

/** The label option, when given. */
function labelArg(ctx: CliContext): { label?: string } {
  const label = ctx.string('label')
  return label !== undefined ? { label } : {}
}

function describeAccount(a: VaultKeysView['accounts'][number]): string[] {
  const lines = [`${a.address}  ${a.watchOnly ? 'watch-only' : 'key       '}  ${a.label}`]
  for (const g of a.agents) lines.push(`    agent slot ${g.slot}: ${g.address}`)
  return lines
}

const init: Command = {
  name: 'init',
  summary: 'create the vault (asks for a new passphrase)',
  options: { 'scrypt-n': SCRYPT_N },
  async run(ctx) {
    // Refused before the passphrase is asked; the core names its vault file (vault.keys reads a locked vault).
    if ((await ctx.call('app.state', undefined)).vault.exists) {
      const { path } = await ctx.call('vault.keys', undefined)
      throw new DeskError('VaultExists', `a vault already exists at ${path}`)
    }
    const scryptN = scryptNFromOption(ctx)
    const passphrase = await ctx.secretRef('passphrase-file', 'New vault passphrase: ', 'vault passphrase', true)
    const r = await ctx.call('vault.init', { passphrase, ...(scryptN !== undefined ? { scryptN } : {}) })
    ctx.print(`created vault ${r.path} (scrypt N=${r.kdf.n}, r=${r.kdf.r}, p=${r.kdf.p})`, r)
  },
}

const list: Command = {
  name: 'list',
  summary: 'list accounts and agent keys (no passphrase needed)',
  async run(ctx) {
    const r = await ctx.call('vault.keys', undefined)
    const human = r.accounts.length === 0 ? ['(no accounts)'] : r.accounts.flatMap(describeAccount)
    ctx.print(human, r)
  },
}

const importKey: Command = {
  name: 'import-key',
  summary: 'import a raw private key (hex) from a prompt or --key-file',
  options: {
    'key-file': { type: 'string', valueName: 'FILE', description: 'read the hex key from FILE (never pass a key as an argument)' },
    label: LABEL,
  },
  async run(ctx) {
    await ctx.unlocked()
    const key = await ctx.secretRef('key-file', 'Private key (hex): ', 'private key')
    const { address } = await ctx.call('accounts.importKey', { key, ...labelArg(ctx) })
    ctx.print(`imported ${address}`, { address })
  },
}

const importKeystore: Command = {
  name: 'import-keystore',
  summary: 'import a Web3 Secret Storage v3 keystore (geth, ethers, Foundry)',
  positionals: ['FILE'],
  options: { 'keystore-passphrase-file': KEYSTORE_PASS, label: LABEL },
  async run(ctx) {
    const file = resolve(ctx.positionals[0]!)
    await ctx.unlocked()
    const keystorePassphrase = await ctx.secretRef('keystore-passphrase-file', 'Keystore passphrase: ', 'keystore passphrase')
    const { address } = await ctx.call('accounts.importKeystoreFile', { file, keystorePassphrase, ...labelArg(ctx) })
    ctx.print(`imported ${address}`, { address })
  },
}

const exportKeystore: Command = {
  name: 'export-keystore',
  summary: 'write one key (owner or agent) as a v3 keystore under a new passphrase',
  positionals: ['ACCOUNT', 'FILE'],
  options: {
    'keystore-passphrase-file': KEYSTORE_PASS,
    kdf: { type: 'string', valueName: 'scrypt|pbkdf2', description: 'key derivation of the keystore (default scrypt)' },
    'scrypt-n': SCRYPT_N,
    force: { type: 'boolean', description: 'overwrite FILE if it exists' },
  },
  async run(ctx) {
    const [addressText, file] = ctx.positionals as [string, string]
    const address = await checksummedArg(addressText)
    const kdfName = ctx.string('kdf') ?? 'scrypt'
    if (kdfName !== 'scrypt' && kdfName !== 'pbkdf2') throw new UsageError('--kdf must be scrypt or pbkdf2')
    const kdf =
      kdfName === 'scrypt' ? { kdf: 'scrypt' as const, n: scryptNFromOption(ctx) ?? (await defaultScrypt()).n } : { kdf: 'pbkdf2' as const }
    if (
      !ctx.flag('force') &&
      (await fs.stat(file).then(
        () => true,
        () => false,
      ))
    )
      throw new DeskError('FileExists', `${file} exists; pass --force to overwrite`)
    const vaultPassphrase = await ctx.vaultPassphraseRef()
    const keystorePassphrase = await ctx.secretRef('keystore-passphrase-file', 'New keystore passphrase: ', 'keystore passphrase', true)
    // Main writes the file (0600) itself: the keystore never crosses the channel.
    await ctx.call('vault.exportKeystore', {
      address,
      file: resolve(file),
      force: ctx.flag('force'),
      vaultPassphrase,
      keystorePassphrase,
      kdf,
    })
    ctx.print(`wrote keystore of ${address} to ${file}`, { address, file })
  },
}

const generate: Command = {
  name: 'generate',
  summary: 'generate a new owner key from the OS random source',
  options: { label: LABEL },
  async run(ctx) {
    await ctx.unlocked()
    // Checksummed, as `keys list` shows it (the app's view is lower case).
    const address = await checksummedArg((await ctx.call('accounts.generate', { label: ctx.string('label') ?? '' })).address)
    ctx.print(`generated ${address}`, { address })
  },
}

const sandboxAccounts: Command = {
  name: 'add-sandbox-accounts',
  summary: 'add the sandbox demo accounts (PUBLIC development keys, sandbox network only), as the first-run screen does',
  async run(ctx) {
    await ctx.unlocked()
    const added = await ctx.call('accounts.importSandboxKeys', undefined)
    ctx.print(
      [
        `${added.length} sandbox demo account(s), public development keys, never for real funds:`,
        ...added.map((a) => `  ${a.label}  ${a.address}`),
      ],
      added,
    )
  },
}

const watch: Command = {
  name: 'watch',
  summary: 'add a watch-only account (address only: visible, not signable)',
  positionals: ['ADDRESS'],
  options: { label: LABEL },
  async run(ctx) {
    const address = await checksummedArg(ctx.positionals[0]!)
    await ctx.unlocked()
    await ctx.call('accounts.watch', { address, label: ctx.string('label') ?? '' })
    ctx.print(`watching ${address}`, { address })
  },
}

const remove: Command = {
  name: 'remove',
  summary: 'remove an account with its key and agent keys (asks for confirmation)',
  positionals: ['ACCOUNT'],
  async run(ctx) {
    const address = await checksummedArg(ctx.positionals[0]!)
    const account = (await ctx.call('vault.keys', undefined)).accounts.find((a) => a.address === address)
    if (!account) throw new DeskError('AccountNotInVault', `${address} is not an account in the vault`)
    if (!account.watchOnly || account.agents.length > 0) {
      await ctx.confirmYes(
        `Remove ${address} (${account.label}) and its keys from the vault? Without an exported copy the keys are gone ` +
          '(the previous vault file stays as vault.json.bak until the next change).',
      )
    }
    await ctx.unlocked()
    await ctx.call('accounts.remove', { address })
    ctx.print(`removed ${address}`, { address, removed: true })
  },
}

const changePassphrase: Command = {
  name: 'change-passphrase',
  summary: 're-encrypt the vault under a new passphrase',
  options: {
    'new-passphrase-file': { type: 'string', valueName: 'FILE', description: 'read the new passphrase from FILE instead of prompting' },
  },
  async run(ctx) {
    const current = await ctx.secret('passphrase-file', 'Vault passphrase: ', 'vault passphrase')
    const next = await ctx.secret('new-passphrase-file', 'New vault passphrase: ', 'new vault passphrase', true)
    // The app's channel re-encrypts an unlocked vault and checks `current` itself.
    await ctx.unlocked()
    await ctx.call('vault.changePassphrase', { current, next })
    ctx.print('vault passphrase changed', { changed: true })
  },
}

const group: CommandGroup = {
  name: 'keys',
  summary: 'the key vault: create, list, import, export, generate, add the sandbox demo accounts, watch, remove, change passphrase',
  commands: [init, list, importKey, importKeystore, exportKeystore, generate, sandboxAccounts, watch, remove, changePassphrase],
}
export default group
