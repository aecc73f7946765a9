import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import * as v from 'valibot'
import { DeskError } from '../errors/desk-error'
import { builtinNetworks, NetworkConfigSchema, validateNetwork, type NetworkConfig } from './networks'

/**
 * Operator settings, one JSON file in the data directory. Loaded through a schema: a missing
 * file means first run (defaults); a corrupt or invalid one is a typed error and is never
 * overwritten, so nothing the operator configured is lost silently. Writes are atomic
 * (temp file, fsync, rename).
 */
export const SETTINGS_FILE = 'settings.json'
export const SETTINGS_VERSION = 1

const pct = v.pipe(v.number(), v.minValue(0), v.maxValue(100))

export const SettingsSchema = v.pipe(
  v.object({
    version: v.literal(SETTINGS_VERSION),
    selectedNetwork: v.string(),
    networks: v.array(NetworkConfigSchema),
    /** Lock the vault after this many idle minutes. */
    autoLockMinutes: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(24 * 60)),
    /** An owner-key action within this many minutes of the last passphrase entry needs no re-entry (0: always ask). */
    passphraseWindowMinutes: v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(24 * 60)),
    /** Credit warning levels by share of the credit line in use (percent). */
    warningThresholds: v.pipe(
      v.object({ watchPct: pct, warningPct: pct, criticalPct: pct }),
      v.check((t) => t.watchPct <= t.warningPct && t.warningPct <= t.criticalPct, 'thresholds must satisfy watch <= warning <= critical'),
    ),
    theme: v.picklist(['dark', 'light']),
  }),
  v.check((s) => s.networks.some((n) => n.name === s.selectedNetwork), 'selectedNetwork must name a listed network'),
  v.check((s) => new Set(s.networks.map((n) => n.name)).size === s.networks.length, 'network names must be unique'),
)
export type Settings = v.InferOutput<typeof SettingsSchema>
export type SettingsPatch = Partial<Pick<Settings, 'autoLockMinutes' | 'passphraseWindowMinutes' | 'warningThresholds' | 'theme'>>

export function defaultSettings(): Settings {
  return {
    version: SETTINGS_VERSION,
    selectedNetwork: 'sandbox',
    networks: builtinNetworks(),
    autoLockMinutes: 15,
    passphraseWindowMinutes: 5,
    warningThresholds: { watchPct: 50, warningPct: 75, criticalPct: 90 },
    theme: 'dark',
  }
}

function issueText(issues: readonly v.BaseIssue<unknown>[]): { message: string; path: string } {
  const i = issues[0]
  return { message: i?.message ?? 'invalid', path: i ? (v.getDotPath(i) ?? '') : '' }
}

/** Writes `text` to `file` atomically: a crash leaves the old or the new file, never a torn one. */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`
  const fd = openSync(tmp, 'w', 0o600)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
  try {
    const dfd = openSync(dirname(file), 'r')
    try {
      fsyncSync(dfd)
    } finally {
      closeSync(dfd)
    }
  } catch {
    // Directory fsync is not supported everywhere (Windows); the rename is still atomic.
  }
}

export class SettingsStore {
  readonly file: string
  private cached: Settings | undefined

  constructor(dataDir: string) {
    this.file = join(dataDir, SETTINGS_FILE)
  }

  /** Current settings: defaults on first run, `SettingsCorrupt` / `SettingsInvalid` when the file is damaged. */
  load(): Settings {
    if (this.cached) return this.cached
    let text: string
    try {
      text = readFileSync(this.file, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return (this.cached = defaultSettings())
      throw new DeskError('SettingsUnreadable', `cannot read ${this.file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, {
        file: this.file,
      })
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new DeskError('SettingsCorrupt', `${this.file} is not valid JSON; fix or move it away (it was left untouched)`, {
        file: this.file,
      })
    }
    const r = v.safeParse(SettingsSchema, json)
    if (!r.success) {
      const { message, path } = issueText(r.issues)
      throw new DeskError('SettingsInvalid', `${this.file}: ${path ? path + ': ' : ''}${message} (the file was left untouched)`, {
        file: this.file,
        path,
      })
    }
    // Built-in networks added by a newer version appear without touching the operator's entries.
    const names = new Set(r.output.networks.map((n) => n.name))
    const merged = { ...r.output, networks: [...r.output.networks, ...builtinNetworks().filter((b) => !names.has(b.name))] }
    return (this.cached = merged)
  }

  save(next: Settings): Settings {
    const r = v.safeParse(SettingsSchema, next)
    if (!r.success) {
      const { message, path } = issueText(r.issues)
      throw new DeskError('InvalidSettings', `${path ? path + ': ' : ''}${message}`, { path })
    }
    writeFileAtomic(this.file, JSON.stringify(r.output, null, 2) + '\n')
    this.cached = r.output
    return r.output
  }

  update(patch: SettingsPatch): Settings {
    return this.save({ ...this.load(), ...patch })
  }

  networks(): NetworkConfig[] {
    return this.load().networks
  }

  network(name: string): NetworkConfig {
    const n = this.load().networks.find((x) => x.name === name)
    if (!n)
      throw new DeskError(
        'UnknownNetwork',
        `no network named "${name}" (known: ${this.load()
          .networks.map((x) => x.name)
          .join(', ')})`,
        { network: name },
      )
    return n
  }

  selected(): NetworkConfig {
    return this.network(this.load().selectedNetwork)
  }

  select(name: string): NetworkConfig {
    const n = this.network(name)
    this.save({ ...this.load(), selectedNetwork: name })
    return n
  }

  /** Adds or replaces a network (validated; built-ins keep their kind and chain id). */
  saveNetwork(input: unknown): NetworkConfig {
    const n = validateNetwork(input)
    const s = this.load()
    const others = s.networks.filter((x) => x.name !== n.name)
    this.save({ ...s, networks: [...others, n].sort((a, b) => order(a) - order(b) || a.name.localeCompare(b.name)) })
    return n
  }

  /** Removes a custom network; built-ins cannot be removed, only reconfigured. */
  removeNetwork(name: string): void {
    const n = this.network(name)
    if (n.kind !== 'custom')
      throw new DeskError('BuiltinNetwork', `the ${n.kind} network is built in; edit its URLs instead of removing it`, { network: name })
    const s = this.load()
    if (s.selectedNetwork === name)
      throw new DeskError('NetworkInUse', `"${name}" is the selected network; select another one first`, { network: name })
    this.save({ ...s, networks: s.networks.filter((x) => x.name !== name) })
  }
}

function order(n: NetworkConfig): number {
  return { sandbox: 0, testnet: 1, mainnet: 2, custom: 3 }[n.kind]
}
