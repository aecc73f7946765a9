/**
 * Which links main may hand to the operating system's browser (`shell.openExternal`). Main owns
 * this list: the hosts shipped with the app, plus hosts the operator confirmed in a main-side
 * dialog. Nothing the renderer can write (network settings included) widens it, so a compromised
 * renderer cannot make main open an arbitrary site.
 *
 * Rules: https only; no userinfo (`https://docs.example@evil.test` is refused whatever its host);
 * hosts compare after WHATWG normalization (lowercase, IDN to punycode, trailing dot dropped); a
 * port other than 443 must be listed with the host (`host:8443`); IP literals and single-label
 * names are never listed. Callers open `allowedUrl()`'s canonical form, never the raw string, so
 * the OS browser cannot parse a different host than the one checked here.
 */
import { promises as fs } from 'node:fs'
import { isIP } from 'node:net'
import { join } from 'node:path'
import * as v from 'valibot'
import { DeskError } from '../errors/desk-error'
import { writeFileAtomic } from '../vault/atomic-write'

/**
 * Documentation and explorer hosts shipped with the app. PLACEHOLDERS until the service
 * publishes its own: `.example` names (RFC 2606) can never resolve to someone else's site.
 */
export const SHIPPED_EXTERNAL_HOSTS: readonly string[] = ['docs.treasury-desk.example', 'explorer.treasury-desk.example']

export const EXTERNAL_HOSTS_FILE = 'external-hosts.json'
const FILE_FORMAT = 'treasury-desk-external-hosts'
const FILE_VERSION = 1
/** Bounds a damaged or hostile file and the confirm-dialog fatigue alike. */
export const MAX_OPERATOR_HOSTS = 256
const MAX_URL_LENGTH = 2048

export interface OperatorHost {
  /** Normalized `hostname` or `hostname:port`. */
  host: string
  addedAt: string
}

/** Refuses text the OS browser could parse differently from WHATWG URL (backslashes, spaces, controls). */
const UNSAFE_URL_TEXT = /[\s\\\p{Cc}]/u

/**
 * The normalized `hostname[:port]` a URL opens, or null when it is not an https URL this policy
 * could ever allow (other scheme, userinfo, IP literal, single-label name, odd characters).
 */
export function externalHostOf(raw: string): string | null {
  if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH || UNSAFE_URL_TEXT.test(raw)) return null
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null
  return hostKey(url.hostname, url.port)
}

function hostKey(hostname: string, port: string): string | null {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  if (name === '' || name.startsWith('[') || isIP(name) !== 0 || !name.includes('.') || name.includes('..')) return null
  return port === '' ? name : `${name}:${port}`
}

/**
 * Normalizes an operator-entered host (`Docs.Example.COM`, `bücher.example`, `docs.example:8443`)
 * to the form stored and compared. Anything but a bare host[:port] is `InvalidExternalHost`.
 */
export function normalizeExternalHost(input: string): string {
  const bad = () =>
    new DeskError(
      'InvalidExternalHost',
      'Give a host name such as docs.example.com (optionally with :port), without scheme, path or user name.',
    )
  if (typeof input !== 'string' || input.length === 0 || input.length > 253 + 6 || UNSAFE_URL_TEXT.test(input) || /[/?#@]/.test(input))
    throw bad()
  let url: URL
  try {
    url = new URL(`https://${input}/`)
  } catch {
    throw bad()
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') throw bad()
  const key = hostKey(url.hostname, url.port)
  if (key === null) throw bad()
  return key
}

const FileSchema = v.strictObject({
  format: v.literal(FILE_FORMAT),
  version: v.literal(FILE_VERSION),
  hosts: v.pipe(
    v.array(v.strictObject({ host: v.pipe(v.string(), v.maxLength(260)), addedAt: v.pipe(v.string(), v.isoTimestamp()) })),
    v.maxLength(MAX_OPERATOR_HOSTS),
  ),
})

function damaged(path: string, why: string): DeskError {
  return new DeskError(
    'ExternalHostsFileDamaged',
    `The list of confirmed link hosts (${path}) is damaged (${why}). Only the hosts shipped with the app are allowed until it is fixed or removed.`,
    { path },
  )
}

/** Parses and validates the file text: every host must already be in normalized form, once. */
export function parseExternalHostsFile(text: string, path: string): OperatorHost[] {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw damaged(path, 'not valid JSON')
  }
  const r = v.safeParse(FileSchema, json)
  if (!r.success) {
    const issue = r.issues[0]
    throw damaged(path, `${issue?.message ?? 'bad shape'} at ${(issue && v.getDotPath(issue)) ?? 'top level'}`)
  }
  const seen = new Set<string>()
  for (const { host } of r.output.hosts) {
    let normal: string
    try {
      normal = normalizeExternalHost(host)
    } catch {
      throw damaged(path, `"${host.slice(0, 64)}" is not a host name`)
    }
    if (normal !== host) throw damaged(path, `"${host.slice(0, 64)}" is not in normalized form`)
    if (seen.has(host)) throw damaged(path, `"${host}" is listed twice`)
    seen.add(host)
  }
  return r.output.hosts.map((h) => ({ ...h }))
}

export class ExternalLinkPolicy {
  readonly path: string
  private operator: OperatorHost[]
  private readonly shipped: ReadonlySet<string>
  private readonly now: () => number
  private queue: Promise<unknown> = Promise.resolve()

  /** Prefer `load()`; this starts from the given operator hosts without reading the file. */
  constructor(dataDir: string, options: { operatorHosts?: OperatorHost[]; shippedHosts?: readonly string[]; now?: () => number } = {}) {
    this.path = join(dataDir, EXTERNAL_HOSTS_FILE)
    this.operator = [...(options.operatorHosts ?? [])]
    this.shipped = new Set((options.shippedHosts ?? SHIPPED_EXTERNAL_HOSTS).map(normalizeExternalHost))
    this.now = options.now ?? Date.now
  }

  /**
   * Reads the operator's confirmed hosts from the data dir (none when the file does not exist).
   * A damaged file is `ExternalHostsFileDamaged`; the caller may fall back to `shippedOnly()`.
   */
  static async load(dataDir: string, options: { shippedHosts?: readonly string[]; now?: () => number } = {}): Promise<ExternalLinkPolicy> {
    const path = join(dataDir, EXTERNAL_HOSTS_FILE)
    let text: string | null = null
    try {
      text = await fs.readFile(path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        throw damaged(path, `cannot read it: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
    }
    const operatorHosts = text === null ? [] : parseExternalHostsFile(text, path)
    return new ExternalLinkPolicy(dataDir, { ...options, operatorHosts })
  }

  /** True when main may open `url` in the system browser. */
  isAllowed(url: string): boolean {
    return this.allowedUrl(url) !== null
  }

  /** The canonical URL to hand to the OS (never the raw string), or null when refused. */
  allowedUrl(raw: string): string | null {
    const host = externalHostOf(raw)
    if (host === null || !this.has(host)) return null
    return new URL(raw).href
  }

  /** Every allowed host, shipped first, in normalized form. */
  hosts(): string[] {
    return [...this.shipped, ...this.operator.map((h) => h.host).filter((h) => !this.shipped.has(h))]
  }

  /** The hosts the operator added (with when), for a settings screen that lets them be removed. */
  operatorHosts(): OperatorHost[] {
    return this.operator.map((h) => ({ ...h }))
  }

  private has(host: string): boolean {
    return this.shipped.has(host) || this.operator.some((h) => h.host === host)
  }

  /**
   * Adds a host the operator has ALREADY confirmed in a main-side dialog (never call this from a
   * renderer request alone). Persisted atomically before it takes effect; returns the stored form.
   */
  addConfirmed(host: string): Promise<string> {
    const normal = normalizeExternalHost(host)
    return this.serial(async () => {
      if (this.has(normal)) return normal
      if (this.operator.length >= MAX_OPERATOR_HOSTS)
        throw new DeskError('TooManyExternalHosts', `At most ${MAX_OPERATOR_HOSTS} link hosts can be added; remove some first.`)
      const next = [...this.operator, { host: normal, addedAt: new Date(this.now()).toISOString() }]
      await this.write(next)
      this.operator = next
      return normal
    })
  }

  /** Removes an operator-added host (shipped hosts cannot be removed). Tightening needs no confirmation. */
  remove(host: string): Promise<boolean> {
    const normal = normalizeExternalHost(host)
    return this.serial(async () => {
      const next = this.operator.filter((h) => h.host !== normal)
      if (next.length === this.operator.length) return false
      await this.write(next)
      this.operator = next
      return true
    })
  }

  private async write(hosts: OperatorHost[]): Promise<void> {
    const text = JSON.stringify({ format: FILE_FORMAT, version: FILE_VERSION, hosts }, null, 2) + '\n'
    try {
      await writeFileAtomic(this.path, text, { mode: 0o600 })
    } catch (e) {
      throw new DeskError(
        'ExternalHostsWriteFailed',
        `Could not save the list of link hosts (${this.path}): ${(e as NodeJS.ErrnoException).code ?? 'error'}; nothing changed.`,
        { path: this.path },
      )
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }
}
