import { formatDurationWords } from '../../contract/format'
import { DeskError } from '../errors/desk-error'
import { requireTransferDestination, requireWithdrawDestination, type AddressBookView } from './address-book'
import { addAddress, addressInput, addressView, removeAddress } from './address-changes'
import { setRule } from './rule-changes'
import {
  DESK_EVENTS,
  TEAM_APPROVED,
  type AddressView,
  type Authority,
  type PolicyChanges,
  type PolicyEngineOptions,
  type PolicyState,
  type RuleState,
} from './engine-types'
import { describeExchange, exchangeIdentity, exchangeKey, exchangeTag, type ExchangeIdentity } from './exchange'
import { DeskHaltFile, PolicyFile, deskHaltPath, exchangePolicyPath, type DeskHalt, type PolicyDoc } from './policy-file'
import {
  at,
  checkMove,
  checkOrderValue,
  checkPriceBand,
  overridePhrase,
  priceBandBreach,
  type Move,
  type MoveKind,
  type OrderBandCheck,
  type PriceBandOverride,
  type Valuer,
} from './limits'
import { USD_RULES, canonicalValue, isTightening, ruleSpec, valueWithSource, type ValueSource } from './rules'
import { coolingOffText, ruleValueText } from './rule-text'
import { journalUsage, type UsageEntry } from './usage'

export type { PolicyNetwork } from './exchange'
export { DESK_EVENTS, TEAM_APPROVED, type AddressView, type PolicyEngineOptions, type PolicyState, type RuleState } from './engine-types'

export { freesAt, type Move, type MoveKind, type OrderBandCheck, type PriceBandOverride, type Valuer } from './limits'

/**
 * The operator's guardrails for the exchange a network talks to (its signing chain id and service
 * hosts, exchange.ts: every name for one exchange shares them): address book with cooling-off,
 * value limits per transaction and per rolling 24 h, the order price band and maximum order
 * value; and the desk-wide halt switch. Persisted in the data directory (re-read at every check,
 * so another process's change and a damaged file are seen at once) and journaled. It decides;
 * the write handlers ask it before anything is signed.
 */
export class PolicyEngine {
  readonly network: string
  readonly sandbox: boolean
  readonly exchange: ExchangeIdentity
  private readonly file: PolicyFile
  private readonly haltFile: DeskHaltFile
  private readonly now: () => number
  private readonly usage: (kind: MoveKind, since: number) => UsageEntry[]

  constructor(private readonly o: PolicyEngineOptions) {
    this.network = o.network.name
    this.sandbox = o.network.kind === 'sandbox'
    this.exchange = exchangeIdentity(o.network)
    this.file = new PolicyFile(exchangePolicyPath(o.dataDir, exchangeTag(this.exchange)), exchangeKey(this.exchange))
    this.haltFile = new DeskHaltFile(deskHaltPath(o.dataDir))
    this.now = o.now
    // Moves journaled under any name of this exchange count against its limits.
    this.usage = o.usage ?? ((kind, since) => this.aliases().flatMap((n) => journalUsage(o.journal, n, kind, since)))
  }

  /** The file this exchange's policy is kept in. */
  get policyFile(): string {
    return this.file.file
  }

  /** Network names this exchange is used under (this one first). */
  aliases(doc: PolicyDoc = this.doc()): string[] {
    return [this.network, ...(doc.aliases ?? []).filter((n) => n !== this.network)]
  }

  /** The journal keys whose events concern this exchange: its names and the desk-wide ones. */
  eventNetworks(): string[] {
    return [DESK_EVENTS, ...this.aliases()]
  }

  // ---- state -----------------------------------------------------------------------------------

  /** The policy document with matured loosenings applied (each one journaled as it takes effect). */
  private doc(): PolicyDoc {
    let doc = this.file.load()
    if (doc.halted) {
      // A halt written into an exchange's file (earlier versions, or by hand) halts the desk.
      this.raiseHalt(doc.halted.since)
      doc = { ...doc, halted: null }
      this.file.save(doc)
    }
    const t = this.now()
    const due = doc.pending.filter((p) => p.effectiveAt <= t)
    if (due.length === 0) return doc
    const next: PolicyDoc = { ...doc, rules: { ...doc.rules }, pending: doc.pending.filter((p) => p.effectiveAt > t) }
    for (const p of due) next.rules[p.name] = p.value
    this.file.save(next)
    for (const p of due)
      this.log('policy.applied', `${p.name} is now ${this.show(p.name, p.value)} (the cooling-off is over)`, {
        name: p.name,
        value: p.value,
        requestedAt: p.requestedAt,
        times: { requestedAt: p.requestedAt },
      })
    return next
  }

  private log(kind: string, summary: string, detail: unknown, network = this.network): void {
    this.o.journal.recordPolicyEvent(network, kind, summary, detail)
  }

  private valueIn(doc: PolicyDoc, name: string): string | null {
    return valueWithSource(doc.rules, name, this.sandboxIn(doc)).value
  }

  /**
   * Whether the sandbox's defaults (60 s cooling-off) apply: the kind the exchange was first
   * adopted as, so another name of another kind never changes its defaults.
   */
  private sandboxIn(doc: PolicyDoc): boolean {
    return (doc.exchange?.kind ?? this.o.network.kind) === 'sandbox'
  }

  /** The desk-wide halt, keeping the earliest time when halted twice. */
  private raiseHalt(since: number): NonNullable<DeskHalt> {
    const cur = this.haltFile.load()
    if (cur && cur.since <= since) return cur
    const h = { since }
    this.haltFile.save(h)
    return h
  }

  /** A rule's value in force now (null: off). */
  value(name: string): string | null {
    ruleSpec(name)
    return this.valueIn(this.doc(), name)
  }

  private coolingOffIn(doc: PolicyDoc): number {
    const v = this.valueIn(doc, 'cooling-off')
    return v === null ? 0 : Number(v)
  }

  coolingOffMs(): number {
    return this.coolingOffIn(this.doc())
  }

  /** A value as the operator reads it, saying where it comes from when it is not the operator's own. */
  private show(name: string, value: string | null, source: ValueSource = 'set'): string {
    return ruleValueText(name, value, source)
  }

  private coolingOffNote(ms: number, doc: PolicyDoc): string {
    return coolingOffText(ms, this.sandboxIn(doc) && !('cooling-off' in doc.rules))
  }

  state(): PolicyState {
    const doc = this.doc()
    const t = this.now()
    const names = new Set<string>([...USD_RULES, 'price-band', 'cooling-off', ...Object.keys(doc.rules), ...doc.pending.map((p) => p.name)])
    const rules = [...names].sort().map((name): RuleState => {
      const p = doc.pending.find((x) => x.name === name)
      return {
        name,
        value: this.valueIn(doc, name),
        unit: ruleSpec(name).unit,
        pending: p ? { value: p.value, requestedAt: p.requestedAt, effectiveAt: p.effectiveAt } : null,
      }
    })
    const x = this.exchange
    return {
      network: this.network,
      exchange: { description: describeExchange(x), chainId: x.chainId, trading: x.trading, earn: x.earn, aliases: this.aliases(doc) },
      coolingOffMs: this.coolingOffIn(doc),
      sandboxDefaults: this.sandboxIn(doc) && !('cooling-off' in doc.rules),
      rules,
      halted: this.haltFile.load(),
      addresses: doc.addresses.map((a) => addressView(a, t)),
    }
  }

  // ---- changes (journaled) ---------------------------------------------------------------------

  private async requirePassphrase(passphrase: Authority | undefined, what: string): Promise<void> {
    if (passphrase === TEAM_APPROVED) return
    if (passphrase === undefined || passphrase === '') throw new DeskError('PassphraseRequired', `${what} needs the vault passphrase`)
    if (!(await this.o.verifyPassphrase(passphrase)))
      throw new DeskError('PassphraseIncorrect', `wrong vault passphrase: ${what} was not done`)
  }

  /** The passphrase check a change needs, alone: a team proposal is made only after it. */
  checkPassphrase(passphrase: string | undefined, what: string): Promise<void> {
    return this.requirePassphrase(passphrase, what)
  }

  /**
   * Sets a rule. Tightening applies at once (no passphrase); loosening needs the passphrase and
   * takes effect after the cooling-off in force, shown as a pending change until then.
   *
   * The cooling-off is the exception: changing it needs the passphrase either way. It is the delay
   * on the operator's own later changes, so a longer one is not a tightening anyone may impose:
   * no change made without the passphrase may delay a later change beyond the cooling-off in
   * force before it. A raise (with the passphrase) applies at once; a cut waits out the current one.
   */
  set(name: string, raw: string | null, passphrase?: Authority): Promise<{ applied: boolean; effectiveAt: number }> {
    return setRule(this.changes(), name, raw, passphrase)
  }

  /** An address-book entry as it would be stored (label trimmed, address checksummed), or a typed refusal. */
  addressInput(req: { label: string; address: string; chainId: string }): { label: string; address: string; chainId: string } {
    return addressInput(req)
  }

  /**
   * A rule change as `set` would store it, whether `set` asks for the passphrase (a loosening, or the
   * cooling-off), and whether it tightens (the team policy's direction; unchanged counts as tightening).
   */
  setInput(name: string, raw: string | null): { value: string | null; needsPassphrase: boolean; tightening: boolean } {
    const value = canonicalValue(name, raw)
    const doc = this.doc()
    const { value: current } = valueWithSource(doc.rules, name, this.sandboxIn(doc))
    const tightening = isTightening(name, current, value)
    return { value, needsPassphrase: name === 'cooling-off' || !tightening, tightening }
  }

  /** Refuses (NotHalted) when writes are not halted: resume has nothing to do. */
  requireHalted(): void {
    this.doc()
    if (!this.haltFile.load()) throw new DeskError('NotHalted', 'writes are not halted')
  }

  /** Adds (or edits, by label) an address-book entry; usable after the cooling-off. */
  addAddress(req: { label: string; address: string; chainId: string; passphrase: Authority }): Promise<AddressView> {
    return addAddress(this.changes(), req)
  }

  removeAddress(req: { label: string; passphrase: Authority }): Promise<{ removed: string }> {
    return removeAddress(this.changes(), req)
  }

  /** What the rule and address-book changes use of the engine. */
  private changes(): PolicyChanges {
    return {
      doc: () => this.doc(),
      save: (doc) => this.file.save(doc),
      now: () => this.now(),
      coolingOffIn: (doc) => this.coolingOffIn(doc),
      sandboxIn: (doc) => this.sandboxIn(doc),
      requirePassphrase: (p, what) => this.requirePassphrase(p, what),
      log: (kind, summary, detail) => this.log(kind, summary, detail),
    }
  }

  /**
   * Refuses every write on every network from now on (desk-wide and persisted, so neither another
   * network name nor a restart gets round it) until `resume`.
   */
  halt(): { since: number } {
    this.doc()
    const cur = this.haltFile.load()
    if (cur) return cur
    const halted = this.raiseHalt(this.now())
    this.log(
      'halt',
      `writes halted on every network (asked on ${this.network}): every open order is being cancelled; nothing is signed until resume`,
      { ...halted, network: this.network, times: { since: halted.since } },
      DESK_EVENTS,
    )
    return halted
  }

  async resume(passphrase: Authority): Promise<void> {
    this.doc()
    const h = this.haltFile.load()
    if (!h) throw new DeskError('NotHalted', 'writes are not halted')
    await this.requirePassphrase(passphrase, 'resuming writes')
    this.haltFile.save(null)
    this.log(
      'resume',
      `writes resumed on every network after a halt of ${formatDurationWords(Math.max(0, this.now() - h.since))}`,
      { haltedSince: h.since, network: this.network, times: { haltedSince: h.since } },
      DESK_EVENTS,
    )
  }

  // ---- checks (before anything is signed) ------------------------------------------------------

  /** Refuses while the desk is halted; `what` names the write in the refusal. */
  requireWritable(what: string): void {
    this.doc() // a damaged policy file refuses too
    const h = this.haltFile.load()
    if (h)
      throw new DeskError(
        'WritesHalted',
        `writes are halted on every network since ${at(h.since)}: ${what} was refused. Resume with the passphrase first.`,
        { code: 'WritesHalted', since: h.since },
      )
  }

  private addressBook(): AddressBookView {
    const doc = this.doc()
    return { entries: doc.addresses, now: () => this.now(), coolingOffNote: (ms) => this.coolingOffNote(ms, this.doc()) }
  }

  /** A withdrawal goes only to an address-book entry for its chain, past its cooling-off. */
  requireWithdrawDestination(address: string, chainId: string): void {
    requireWithdrawDestination(() => this.addressBook(), address, chainId)
  }

  /** A transfer goes only to the operator's own accounts or an address-book entry (any chain) past its cooling-off. */
  requireTransferDestination(to: string, ownAccounts: readonly string[]): void {
    requireTransferDestination(() => this.addressBook(), to, ownAccounts)
  }

  /** Per-transaction and rolling-24 h limits, in USD at current marks and in asset units where set. */
  checkMove(kind: MoveKind, m: Move, value: Valuer): void {
    const doc = this.doc()
    checkMove({ rule: (name) => this.valueIn(doc, name), now: this.now(), usage: (k, since) => this.usage(k, since) }, kind, m, value)
  }

  /** Maximum order value in USD (notional at the quote asset's current mark). */
  checkOrderValue(notionalUsd: () => bigint): void {
    checkOrderValue(this.valueIn(this.doc(), 'max-order-usd'), notionalUsd)
  }

  /** The phrase the operator types to place one order outside the band. */
  static overridePhrase(o: Pick<OrderBandCheck, 'side' | 'marketId' | 'price'>): string {
    return overridePhrase(o)
  }

  /**
   * Refuses an order priced more than the band through the reference (the far side of the book,
   * else the mark), unless this order carries the knowing override (the exact phrase), which is journaled.
   */
  checkPriceBand(o: OrderBandCheck, override?: PriceBandOverride): { overridden: boolean } {
    // A market's own band, else the global band in force (rules.valueWithSource).
    const band = this.valueIn(this.doc(), `price-band:${o.marketId}`)
    return checkPriceBand(band, o, override, (kind, summary, detail) => this.log(kind, summary, detail))
  }

  /**
   * The band `checkPriceBand` applies to this order and whether the order breaks it, without
   * refusing or logging anything: what the order ticket shows before Place order.
   */
  priceBandOf(o: OrderBandCheck): { band: string | null; breach: string | null; confirmText: string } {
    const band = this.valueIn(this.doc(), `price-band:${o.marketId}`)
    return { band, breach: priceBandBreach(band, o), confirmText: overridePhrase(o) }
  }
}
