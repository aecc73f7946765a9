import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import * as v from 'valibot'
import { writeFileAtomic } from '../config/settings'
import { DeskError } from '../errors/desk-error'

/**
 * The operator's policy for one exchange, one JSON file in the data directory
 * (`policy-x-<tag>.json`, see exchange.ts; earlier versions kept one `policy-<network>.json` per
 * network name, migrated by the PolicyBook), written atomically. A missing file means the defaults; a damaged one is a typed error on every
 * write (never a silent default-allow) and is left untouched for the operator to inspect.
 */
export const POLICY_FILE_VERSION = 1

const time = v.pipe(v.number(), v.safeInteger(), v.minValue(0))
const value = v.nullable(v.pipe(v.string(), v.maxLength(40)))

const PolicyDocSchema = v.object({
  version: v.literal(POLICY_FILE_VERSION),
  network: v.string(),
  /** Rules set by the operator; an absent rule has its default. */
  rules: v.record(v.pipe(v.string(), v.maxLength(64)), value),
  /** Loosenings waiting for their cooling-off. */
  pending: v.array(v.object({ name: v.pipe(v.string(), v.maxLength(64)), value, requestedAt: time, effectiveAt: time })),
  addresses: v.array(
    v.object({
      label: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
      address: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/)),
      chainId: v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]{0,19})$/)),
      addedAt: time,
      usableAt: time,
    }),
  ),
  /** Before the halt became desk-wide (halt-file below); a set value is moved there on load. */
  halted: v.nullable(v.object({ since: time })),
  /** The exchange this policy belongs to (absent in per-name files of earlier versions). */
  exchange: v.optional(v.object({ chainId: v.number(), trading: v.string(), earn: v.string(), kind: v.string() })),
  /** The network names this exchange has been used under (their journaled moves count against its limits). */
  aliases: v.optional(v.array(v.pipe(v.string(), v.maxLength(40)))),
})
export type PolicyDoc = v.InferOutput<typeof PolicyDocSchema>
export type AddressEntry = PolicyDoc['addresses'][number]
export type PendingChange = PolicyDoc['pending'][number]

export function emptyPolicy(network: string): PolicyDoc {
  return { version: POLICY_FILE_VERSION, network, rules: {}, pending: [], addresses: [], halted: null }
}

/** The policy file of an exchange (tag from exchangeTag). */
export function exchangePolicyPath(dataDir: string, tag: string): string {
  return join(dataDir, `policy-x-${tag}.json`)
}

/** Every policy file in the data directory: the exchanges' and any per-name file not yet migrated. */
export function policyFiles(dataDir: string): { file: string; legacyName: string | null }[] {
  let names: string[]
  try {
    names = readdirSync(dataDir)
  } catch {
    return []
  }
  return names
    .filter((n) => /^policy-.+\.json$/.test(n))
    .map((n) => ({
      file: join(dataDir, n),
      legacyName: /^policy-x-[0-9a-f]{16}\.json$/.test(n) ? null : n.slice('policy-'.length, -'.json'.length),
    }))
}

/** Moves a migrated per-name file aside (kept, never deleted: nothing the operator wrote is lost). */
export function retireLegacyFile(file: string): void {
  let target = `${file}.migrated`
  for (let i = 2; existsSync(target); i++) target = `${file}.migrated-${i}`
  renameSync(file, target)
}

/** Legacy per-name file path (versions before the policy was keyed by exchange). */
export function policyFilePath(dataDir: string, network: string): string {
  // Network names are lowercase letters, digits and dashes (settings schema); keep the file name safe anyway.
  return join(dataDir, `policy-${network.replace(/[^a-z0-9-]/g, '_')}.json`)
}

/** The desk-wide halt: one file, so a halt stops every network at once. */
const HaltDocSchema = v.object({ version: v.literal(1), halted: v.nullable(v.object({ since: time })) })
export type DeskHalt = { since: number } | null

export function deskHaltPath(dataDir: string): string {
  return join(dataDir, 'desk-halt.json')
}

export class DeskHaltFile {
  constructor(readonly file: string) {}

  load(): DeskHalt {
    let text: string
    try {
      text = readFileSync(this.file, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw new DeskError('PolicyFileUnreadable', `cannot read the halt file ${this.file}: every write is refused until it is readable`, {
        file: this.file,
      })
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    const r = v.safeParse(HaltDocSchema, json)
    // A damaged halt file reads as halted: never a silent default-allow.
    if (!r.success)
      throw new DeskError(
        'PolicyFileCorrupt',
        `the halt file ${this.file} is damaged: every write is refused until it is fixed or moved away (it was left untouched)`,
        { file: this.file },
      )
    return r.output.halted
  }

  save(halted: DeskHalt): void {
    writeFileAtomic(this.file, JSON.stringify({ version: 1, halted }, null, 2) + '\n')
  }
}

export class PolicyFile {
  constructor(
    readonly file: string,
    private readonly network: string,
  ) {}

  load(): PolicyDoc {
    let text: string
    try {
      text = readFileSync(this.file, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyPolicy(this.network)
      throw new DeskError('PolicyFileUnreadable', `cannot read the policy file ${this.file}: every write is refused until it is readable`, {
        file: this.file,
      })
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new DeskError(
        'PolicyFileCorrupt',
        `the policy file ${this.file} is not valid JSON: every write is refused until it is fixed or moved away (it was left untouched)`,
        { file: this.file },
      )
    }
    const r = v.safeParse(PolicyDocSchema, json)
    if (!r.success || r.output.network !== this.network) {
      throw new DeskError(
        'PolicyFileCorrupt',
        `the policy file ${this.file} does not have the expected shape: every write is refused until it is fixed or moved away (it was left untouched)`,
        { file: this.file },
      )
    }
    return r.output
  }

  save(doc: PolicyDoc): void {
    writeFileAtomic(this.file, JSON.stringify(doc, null, 2) + '\n')
  }
}
