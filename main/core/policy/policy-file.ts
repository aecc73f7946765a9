import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as v from 'valibot'
import { writeFileAtomic } from '../config/settings'
import { DeskError } from '../errors/desk-error'

/**
 * The operator's policy for one network, one JSON file in the data directory (`policy-<network>.json`),
 * written atomically. A missing file means the defaults; a damaged one is a typed error on every
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
  halted: v.nullable(v.object({ since: time })),
})
export type PolicyDoc = v.InferOutput<typeof PolicyDocSchema>
export type AddressEntry = PolicyDoc['addresses'][number]
export type PendingChange = PolicyDoc['pending'][number]

export function emptyPolicy(network: string): PolicyDoc {
  return { version: POLICY_FILE_VERSION, network, rules: {}, pending: [], addresses: [], halted: null }
}

export function policyFilePath(dataDir: string, network: string): string {
  // Network names are lowercase letters, digits and dashes (settings schema); keep the file name safe anyway.
  return join(dataDir, `policy-${network.replace(/[^a-z0-9-]/g, '_')}.json`)
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
      throw new DeskError('PolicyFileUnreadable', `cannot read the policy file ${this.file}: every write is refused until it is readable`, { file: this.file })
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new DeskError('PolicyFileCorrupt', `the policy file ${this.file} is not valid JSON: every write is refused until it is fixed or moved away (it was left untouched)`, { file: this.file })
    }
    const r = v.safeParse(PolicyDocSchema, json)
    if (!r.success || r.output.network !== this.network) {
      throw new DeskError('PolicyFileCorrupt', `the policy file ${this.file} does not have the expected shape: every write is refused until it is fixed or moved away (it was left untouched)`, { file: this.file })
    }
    return r.output
  }

  save(doc: PolicyDoc): void {
    writeFileAtomic(this.file, JSON.stringify(doc, null, 2) + '\n')
  }
}
