import { existsSync, readFileSync } from 'node:fs'
import { DeskError } from '../errors/desk-error'
import type { Journal } from '../journal'
import { DESK_EVENTS, PolicyEngine } from './engine'
import { describeExchange, exchangeIdentity, exchangeKey, exchangeTag, type ExchangeIdentity, type PolicyNetwork } from './exchange'
import {
  DeskHaltFile,
  PolicyFile,
  deskHaltPath,
  emptyPolicy,
  exchangePolicyPath,
  policyFilePath,
  policyFiles,
  retireLegacyFile,
  type PolicyDoc,
} from './policy-file'
import { mergePolicies, strictestRules, type KnownPolicy } from './seed'

export interface PolicyBookOptions {
  dataDir: string
  journal: Journal
  now: () => number
  verifyPassphrase(passphrase: string): Promise<boolean>
  /** The operator's own accounts (owner keys in the vault): transfers may go there without the address book. */
  ownAccounts(): string[]
}

/**
 * The policy of every exchange the desk talks to, keyed by the exchange (exchange.ts), not by
 * the name a network is saved under. The first time a network is used (or saved) its exchange is
 * adopted: a per-name file of an earlier version is migrated into it; an exchange the desk has
 * never seen starts with the strictest rules the desk keeps; a second name for a known exchange
 * is added to its aliases. The halt is desk-wide (one file), so no name gets round it.
 */
export class PolicyBook {
  private readonly engines = new Map<string, PolicyEngine>()

  constructor(private readonly o: PolicyBookOptions) {}

  ownAccounts(): string[] {
    return this.o.ownAccounts()
  }

  for(network: PolicyNetwork): PolicyEngine {
    const id = exchangeIdentity(network)
    const cacheKey = `${network.name}\n${network.kind}\n${exchangeKey(id)}`
    let e = this.engines.get(cacheKey)
    // A per-name file written after adoption (an earlier version of the desk on the same data directory) is merged too.
    if (!e || existsSync(policyFilePath(this.o.dataDir, network.name))) {
      this.adopt(network, id)
      e ??= new PolicyEngine({ ...this.o, network })
      this.engines.set(cacheKey, e)
    }
    return e
  }

  /** Checks the vault passphrase for a policy change (`PassphraseRequired` / `PassphraseIncorrect`). */
  async requirePassphrase(passphrase: string | undefined, what: string): Promise<void> {
    if (passphrase === undefined || passphrase === '') throw new DeskError('PassphraseRequired', `${what} needs the vault passphrase`)
    if (!(await this.o.verifyPassphrase(passphrase)))
      throw new DeskError('PassphraseIncorrect', `wrong vault passphrase: ${what} was not done`)
  }

  /** A desk-wide policy event (network added, changed, removed or selected). */
  record(kind: string, summary: string, detail: unknown): void {
    this.o.journal.recordPolicyEvent(DESK_EVENTS, kind, summary, detail)
  }

  private log(network: string, kind: string, summary: string, detail: unknown): void {
    this.o.journal.recordPolicyEvent(network, kind, summary, detail)
  }

  private adopt(network: PolicyNetwork, id: ExchangeIdentity): void {
    const key = exchangeKey(id)
    const sandbox = network.kind === 'sandbox'
    const file = new PolicyFile(exchangePolicyPath(this.o.dataDir, exchangeTag(id)), key)
    const known = existsSync(file.file)
    let doc: PolicyDoc | null = known ? file.load() : null
    const legacyPath = policyFilePath(this.o.dataDir, network.name)
    const legacy = existsSync(legacyPath) ? new PolicyFile(legacyPath, network.name).load() : null
    const events: [string, string, unknown][] = []
    const where = describeExchange(id)
    if (legacy) {
      if (legacy.halted) this.raiseHalt(legacy.halted.since)
      const mine: PolicyDoc = { ...legacy, network: key, halted: null }
      doc = doc ? mergePolicies({ doc, sandbox }, { doc: mine, sandbox }, network.name) : mine
      events.push([
        'policy.migrated',
        `the policy kept for "${network.name}" now belongs to its exchange (${where}), shared by every network name that talks to it; nothing was dropped`,
        { exchange: key, merged: known },
      ])
    } else if (!doc) {
      const others = this.knownPolicies(file.file)
      doc = { ...emptyPolicy(key), rules: strictestRules(others, sandbox) }
      const n = Object.keys(doc.rules).length
      if (others.length > 0) {
        events.push([
          'exchange.new',
          `first use of ${where} (as "${network.name}"): it starts no looser than the strictest policy the desk keeps (${n} ` +
            `rule${n === 1 ? '' : 's'} copied; an empty address book)`,
          { exchange: key, rules: doc.rules },
        ])
      }
    }
    const aliases = doc.aliases ?? []
    if (known && !aliases.includes(network.name) && !legacy) {
      const was = aliases.length > 0 ? ` (also used as ${aliases.map((a) => `"${a}"`).join(', ')})` : ''
      events.push([
        'exchange.alias',
        `"${network.name}" talks to ${where}${was}: it shares that exchange's limits, bands and address book`,
        { exchange: key, aliases },
      ])
    }
    const next: PolicyDoc = {
      ...doc,
      exchange: { ...id, kind: doc.exchange?.kind ?? network.kind },
      aliases: aliases.includes(network.name) ? aliases : [...aliases, network.name],
    }
    if (!known || legacy || next.aliases!.length !== aliases.length || !doc.exchange) file.save(next)
    if (legacy) retireLegacyFile(legacyPath)
    for (const [kind, summary, detail] of events) this.log(network.name, kind, summary, detail)
  }

  private raiseHalt(since: number): void {
    const halt = new DeskHaltFile(deskHaltPath(this.o.dataDir))
    const cur = halt.load()
    if (!cur || since < cur.since) halt.save({ since })
  }

  /** Every other policy the desk keeps (a damaged one refuses: its strictness cannot be known). */
  private knownPolicies(except: string): KnownPolicy[] {
    const out: KnownPolicy[] = []
    for (const f of policyFiles(this.o.dataDir)) {
      if (f.file === except) continue
      let doc: PolicyDoc
      try {
        const raw = JSON.parse(readFileSync(f.file, 'utf8')) as { network?: unknown }
        doc = new PolicyFile(f.file, typeof raw.network === 'string' ? raw.network : '').load()
      } catch (e) {
        if (e instanceof DeskError) throw e
        throw new DeskError(
          'PolicyFileCorrupt',
          `the policy file ${f.file} is damaged, so a new exchange cannot be given the strictest policy: every write is refused until it is fixed ` +
            `or moved away (it was left untouched)`,
          { file: f.file },
        )
      }
      out.push({ doc, sandbox: f.legacyName !== null ? f.legacyName === 'sandbox' : doc.exchange?.kind === 'sandbox' })
    }
    return out
  }
}
