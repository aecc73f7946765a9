import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as v from 'valibot'
import { writeFileAtomic } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'

/** Operator-side grouping of accounts (labels live in the vault with the keys). */
const MetaSchema = v.object({
  version: v.literal(1),
  groups: v.record(v.pipe(v.string(), v.regex(/^0x[0-9a-f]{40}$/)), v.pipe(v.string(), v.maxLength(64))),
})
type Meta = v.InferOutput<typeof MetaSchema>

export const ACCOUNT_META_FILE = 'accounts.json'

export class AccountMetaStore {
  private readonly file: string
  private cached: Meta | null = null

  constructor(dataDir: string) {
    this.file = join(dataDir, ACCOUNT_META_FILE)
  }

  private load(): Meta {
    if (this.cached) return this.cached
    let text: string
    try {
      text = readFileSync(this.file, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return (this.cached = { version: 1, groups: {} })
      throw new DeskError('AccountMetaUnreadable', `cannot read ${this.file}`, { file: this.file })
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new DeskError('AccountMetaCorrupt', `${this.file} is not valid JSON; fix or move it away (it was left untouched)`, {
        file: this.file,
      })
    }
    const r = v.safeParse(MetaSchema, json)
    if (!r.success)
      throw new DeskError('AccountMetaCorrupt', `${this.file} does not have the expected shape (it was left untouched)`, {
        file: this.file,
      })
    return (this.cached = r.output)
  }

  group(address: string): string {
    return this.load().groups[address.toLowerCase()] ?? ''
  }

  setGroup(address: string, group: string): void {
    const m = this.load()
    const groups = { ...m.groups }
    if (group) groups[address.toLowerCase()] = group
    else delete groups[address.toLowerCase()]
    const next: Meta = { version: 1, groups }
    writeFileAtomic(this.file, JSON.stringify(next, null, 2) + '\n')
    this.cached = next
  }
}
