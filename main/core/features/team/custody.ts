/**
 * Team custody of owner keys (issue 32): no single desk, disk or database can sign for a team-held
 * account. The key is split (Shamir, threshold T ≥ 2) into shares sealed each to one member's
 * identity key and stored in the team store; the chain's `custody` entry (admin quorum) names the
 * holders. To sign one approved write, the executing desk posts a signing request carrying the
 * exact typed data; each holder's desk, on its own, verifies the chain, the proposal's approvals
 * (or, for a write the policy allows outright, its own co-signer rule, off by default) and that the
 * typed data carries exactly the approved action, then releases its share re-sealed to the
 * executing member only, signed, for that digest, for a minute. The executing desk checks each
 * release, combines T shares in main, checks the key is the account's, signs that digest, checks
 * the signature recovers the account, and zeroes everything. Nothing is logged, nothing crosses IPC.
 */
import { readFileSync } from 'node:fs'
import type { Hex, TypedDataDefinition } from 'viem'
import type { TeamCustodyView } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import {
  TeamErrors,
  combineKey,
  custodyRefusalEntry,
  custodySealEntry,
  isRecordedWrite,
  parseRecoveryShare,
  proposalStatus,
  signedEntry,
  type CustodyRecord,
  type CustodyRefusal,
  type TeamState,
  type UnsignedEntry,
} from '../../team'
import type { VaultCustody } from '../../vault'
import type { VaultHolder } from '../vault'
import type { TeamAdmin } from './admin'
import { digestCarrying, typedDataText } from './custody-bytes'
import { collectReleases, signWithShares, type ReleaseWait } from './custody-collect'
import { DEFAULT_RELEASE_WAIT_MS, resplitRequestId } from './custody-proof'
import { answerRequest } from './custody-release'
import { custodyStatus } from './custody-status'
import { openOwnShare, splitAndSeal, storeSplit } from './custody-shares'
import type { TeamLink } from './team-link'

export { DEFAULT_RELEASE_WAIT_MS, RELEASE_TTL_MS, resplitRequestId, sharesDigest } from './custody-proof'

export interface CustodyDeps {
  link: TeamLink
  vault: VaultHolder
  admin: TeamAdmin
  now: () => number
  /** how long a signature waits for releases; default 30 s */
  releaseWaitMs?: number
  /** this member's co-signer rule: release for writes the verified policy allows outright (off by default) */
  coSign?: () => boolean
}

export interface SplitResult {
  record: CustodyRecord
  /** the recovery share file's checksum (the file itself is written by main where the operator said) */
  recoveryChecksum: string | null
  /** true once the custody entry is in the chain and the key has left this vault */
  applied: boolean
}

export class TeamCustody implements VaultCustody {
  private waiters = new Set<() => void>()
  private released = new Set<string>()
  private answering: Promise<void> | null = null

  constructor(private readonly d: CustodyDeps) {}

  private state(): TeamState | null {
    return this.d.link.gate?.report().state ?? null
  }

  private me(): string {
    const a = this.d.vault.requireUnlocked().identityAddress()
    if (!a) throw new DeskError('IdentityKeyMissing', 'this vault has no operator identity key: desk team join creates one')
    return a.toLowerCase()
  }

  holds(address: string): boolean {
    return this.state()?.custody.has(address.toLowerCase()) ?? false
  }

  /** Publishes this member's identity public key (self-certifying) so shares can be sealed to it. */
  async publish(): Promise<void> {
    const vault = this.d.vault.current
    const pub = vault?.isUnlocked ? vault.identityPublicKey() : null
    const store = this.d.link.store
    if (!pub || !store || this.publishedTo === store) return
    await store.custody.publishIdentityKey(vault!.identityAddress()!, pub)
    this.publishedTo = store
  }
  private publishedTo: object | null = null

  // ---- split ------------------------------------------------------------------------------

  /**
   * Puts `account`'s owner key under team custody: split T of N (holders' shares, and one offline
   * recovery share written to `recoveryFile`), sealed, stored, and the custody entry appended under
   * the admin quorum. The key leaves this vault once the entry is in the chain.
   */
  async split(o: { account: string; holders: string[]; threshold: number; recoveryFile: string | null }): Promise<SplitResult> {
    const account = o.account.toLowerCase()
    const { state, store, roster } = await this.d.link.roster()
    const vault = this.d.vault.requireUnlocked()
    const before = state.custody.get(account)
    if (before) throw new DeskError('CustodyAlreadyTeamHeld', `${account} is already held by the team (split version ${before.version})`)
    const holders = [...new Set(o.holders.map((h) => h.toLowerCase()))].sort()
    for (const h of holders) if (!roster.members.has(h)) throw new DeskError('CustodyBadInput', `${h} is not a member of the team`)
    const keys = await store.custody.identityKeys(holders)
    const missing = holders.filter((h) => !keys.has(h))
    if (missing.length > 0)
      throw new DeskError(
        'CustodyHolderKeyMissing',
        `no published identity key for ${missing.map((h) => roster.members.get(h)?.name ?? h).join(', ')}: ` +
          "each holder's desk publishes it when it opens the team store",
      )
    const version = 1
    const n = holders.length + (o.recoveryFile ? 1 : 0)
    const names = holders.map((h) => roster.members.get(h)?.name ?? h).join(', ')
    let split: Awaited<ReturnType<typeof splitAndSeal>> | null = null
    await vault.withOwnerKey(
      account,
      {
        action: 'teamApproval',
        title: `Put ${account} under team custody`,
        summary: [
          `the owner key of ${account} is split: ${o.threshold} of ${n} shares sign`,
          `shares sealed to ${names}${o.recoveryFile ? ', and one offline recovery share' : ''}`,
          'the key then leaves this vault: no desk can sign for the account alone',
        ],
      },
      async (key) => {
        split = await splitAndSeal({
          key,
          teamId: roster.teamId,
          account,
          version,
          threshold: o.threshold,
          holders,
          keys,
          recoveryFile: o.recoveryFile,
        })
      },
    )
    const record = await storeSplit(store.custody, { account, version, threshold: o.threshold }, split!)
    let applied = true
    try {
      await this.d.admin.proposeCustody(record)
    } catch (e) {
      if (!(e instanceof DeskError && e.code === 'TeamChangeNeedsAdmins')) throw e
      applied = false // the key stays until the entry is in the chain (dropKeys on the next verified push)
    }
    if (applied) await this.dropHeldKeys()
    return { record, recoveryChecksum: record.recovery?.checksum ?? null, applied }
  }

  // ---- re-split and recovery ---------------------------------------------------------------

  /**
   * Re-splits a team-held account to new holders (a member left, a desk was lost): under the admin
   * quorum's re-split entry naming this member as sealer, the current version's holders release
   * their shares to this desk (or the offline recovery share stands in for one: recovery), which
   * combines them, checks the key is the account's, splits it again, seals the new shares to the new
   * holders and appends the seal; the older shares retire. The account keeps its address.
   */
  async resplit(o: {
    account: string
    holders: string[]
    threshold: number
    recoveryFile: string | null
    recoveryShareFile: string | null
  }): Promise<SplitResult> {
    const account = o.account.toLowerCase()
    const { gate, store, roster } = await this.d.link.roster()
    let state = await gate.sync()
    const current = state.custody.get(account)
    if (!current) throw new DeskError('CustodyNotTeamHeld', `${account} is not held by the team: split it first`)
    const me = this.me()
    const holders = [...new Set(o.holders.map((h) => h.toLowerCase()))].sort()
    let pending = state.custodyPending.get(account)
    if (!pending || pending.sealer !== me) {
      try {
        await this.d.admin.proposeResplit({
          account,
          version: current.version + 1,
          threshold: o.threshold,
          holders,
          recovery: o.recoveryFile !== null,
          sealer: me,
        })
      } catch (e) {
        if (e instanceof DeskError && e.code === 'TeamChangeNeedsAdmins')
          return {
            record: { ...current, holders: holders.map((h, i) => ({ address: h, index: i + 1 })) },
            recoveryChecksum: null,
            applied: false,
          }
        throw e
      }
      state = await gate.sync()
      pending = state.custodyPending.get(account)!
    }
    const p = pending
    const teamId = roster.teamId
    const vault = this.d.vault.requireUnlocked()
    const shares: Uint8Array[] = []
    try {
      const own = await openOwnShare(vault, store.custody, teamId, current, me)
      if (own) shares.push(own)
      if (o.recoveryShareFile) {
        const { meta, share } = parseRecoveryShare(readFileSync(o.recoveryShareFile, 'utf8'))
        if (meta.account !== account || meta.version !== current.version || meta.checksum.toLowerCase() !== current.recovery?.checksum)
          throw new DeskError(
            'RecoveryShareInvalid',
            `the recovery share is not ${account}'s split version ${current.version} as the team chain records it`,
          )
        shares.push(share)
      }
      const requestId = resplitRequestId(teamId, account, p.version, me)
      await store.custody.putRequest({
        id: requestId,
        proposalId: p.entry,
        account,
        version: current.version,
        requester: me,
        typedData: JSON.stringify({ resplit: { account, version: p.version } }),
      })
      const what = `the re-split of ${account}`
      const used = new Set<string>(own ? [me] : [])
      const c = { state, record: current, proposalId: p.entry as Hex, request: requestId, me, what }
      await collectReleases(this.wait(), c, shares, used).catch(async (e: unknown) => {
        if (e instanceof DeskError && SIGN_REFUSALS.has(e.code))
          await this.recordRefusal({
            account,
            proposal: p.entry,
            request: requestId,
            side: 'sign',
            code: e.code,
            reason: e.message,
            at: this.d.now(),
          })
        throw e
      })
      const keys = await store.custody.identityKeys(p.holders)
      const missing = p.holders.filter((h) => !keys.has(h))
      if (missing.length > 0) throw new DeskError('CustodyHolderKeyMissing', `no published identity key for ${missing.join(', ')}`)
      const next = { account, version: p.version, threshold: p.threshold }
      const key = await combineKey(shares, account)
      let split: Awaited<ReturnType<typeof splitAndSeal>>
      try {
        split = await splitAndSeal({ key, teamId, ...next, holders: p.holders, keys, recoveryFile: o.recoveryFile })
      } finally {
        key.fill(0)
      }
      const record = await storeSplit(store.custody, next, split)
      await this.appendSeal(record, me)
      return { record, recoveryChecksum: record.recovery?.checksum ?? null, applied: true }
    } finally {
      for (const s of shares) s.fill(0)
    }
  }

  /** Appends the seal, signed by this operator alone. */
  private appendSeal(record: CustodyRecord, me: string): Promise<void> {
    return this.appendOwn((state) => custodySealEntry(state, record, me))
  }

  /**
   * Names a refusal in the chain for every desk (nothing was signed or released). Best effort: the
   * refusal stands whether or not it could be recorded (the store may be what failed).
   */
  private async recordRefusal(r: Omit<CustodyRefusal, 'by' | 'seq'>): Promise<void> {
    try {
      const me = this.me()
      await this.appendOwn((state) => custodyRefusalEntry(state, r, me))
    } catch (e) {
      console.warn('team custody: refusal not recorded in the chain:', e instanceof Error ? e.message : String(e))
    }
  }

  /** Appends an entry signed by this operator alone, on the freshest verified state (retried when another desk took the seq). */
  private async appendOwn(build: (state: TeamState) => UnsignedEntry): Promise<void> {
    const { gate, store } = await this.d.link.roster()
    for (let attempt = 0; ; attempt++) {
      const state = await gate.sync()
      const entry = await signedEntry(state.roster!.teamId, build(state), [this.d.link.operator()])
      try {
        await store.append(entry)
        await gate.sync()
        return
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.conflict && attempt < 8) continue
        throw e
      }
    }
  }

  /** Keys of accounts the verified chain says the team holds leave this vault (after a split lands). */
  dropHeldKeys(): Promise<void> {
    // One pass at a time (a split and the push that verifies its entry both ask).
    this.dropping = this.dropping
      .catch(() => undefined)
      .then(async () => {
        const vault = this.d.vault.current
        const state = this.state()
        if (!vault?.isUnlocked || !state) return
        for (const a of vault.listAccounts()) {
          if (a.watchOnly || a.teamHeld || !state.custody.has(a.address.toLowerCase())) continue
          await vault.dropOwnerKey(a.address)
        }
      })
    return this.dropping
  }
  private dropping: Promise<void> = Promise.resolve()

  // ---- signing (the executing desk) ------------------------------------------------------

  async sign(address: string, typedData: TypedDataDefinition, digest: Hex): Promise<Hex> {
    const { gate } = await this.d.link.roster()
    const state = await gate.sync()
    const record = state.custody.get(address)
    if (!record) throw new DeskError('CustodyNotTeamHeld', `${address} is not held by the team`)
    const me = this.me()
    const now = this.d.now()
    const p = [...state.proposals.values()].find(
      (x) =>
        x.account === address &&
        !x.signed &&
        (proposalStatus(x, state.roster!, now) === 'approved' ||
          (isRecordedWrite(x) && proposalStatus(x, state.roster!, now) === 'approved')) &&
        digestCarrying(x, typedData) === digest,
    )
    if (!p)
      throw new DeskError(
        'CustodyNoApprovedProposal',
        `no approved proposal of the team carries exactly these bytes for ${address}: the holders release no share; nothing was signed`,
      )
    const store = this.d.link.store!
    await store.custody.putRequest({
      id: digest,
      proposalId: p.id,
      account: address,
      version: record.version,
      requester: me,
      typedData: typedDataText(typedData),
    })
    const shares: Uint8Array[] = []
    try {
      const own = await openOwnShare(this.d.vault.requireUnlocked(), store.custody, state.roster!.teamId, record, me)
      if (own) shares.push(own)
      const what = `proposal ${p.id.slice(0, 10)}…`
      const used = new Set<string>(own ? [me] : [])
      await collectReleases(this.wait(), { state, record, proposalId: p.id, request: digest, me, what }, shares, used)
      return await signWithShares(shares, address, digest)
    } catch (e) {
      if (e instanceof DeskError && SIGN_REFUSALS.has(e.code))
        await this.recordRefusal({
          account: address,
          proposal: p.id,
          request: digest,
          side: 'sign',
          code: e.code,
          reason: e.message,
          at: this.d.now(),
        })
      throw e
    } finally {
      for (const s of shares) s.fill(0)
    }
  }

  private wait(): ReleaseWait {
    return {
      store: this.d.link.store!.custody,
      vault: this.d.vault.requireUnlocked(),
      now: this.d.now,
      waitMs: this.d.releaseWaitMs ?? DEFAULT_RELEASE_WAIT_MS,
      pause: (ms) => this.waitForRelease(ms),
    }
  }

  private waitForRelease(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t)
        this.waiters.delete(done)
        resolve()
      }
      const t = setTimeout(done, ms)
      this.waiters.add(done)
    })
  }

  // ---- releasing (a holder's desk) -----------------------------------------------------------

  /** A request or a release was stored (pushed), or the link came back: answer requests, wake waiters. */
  pushed(what: string | null): void {
    for (const w of [...this.waiters]) w()
    if (what !== null && !what.startsWith('request:')) return
    if (this.answering) return
    this.answering = this.answerRequests()
      .catch((e: unknown) => console.warn('team custody: answering requests failed:', e instanceof Error ? e.message : String(e)))
      .finally(() => (this.answering = null))
  }

  /** Releases this member's share for each recent request it can verify; refuses the rest (nothing released). */
  async answerRequests(): Promise<void> {
    const store = this.d.link.store
    const gate = this.d.link.gate
    const vault = this.d.vault.current
    if (!store || !gate || !vault?.isUnlocked || !vault.identityAddress()) return
    const me = this.me()
    const requests = await store.custody.requests(new Date(this.d.now() - 10 * 60_000))
    if (requests.every((q) => this.released.has(q.id))) return
    const state = await gate.sync()
    const releaser = { store: store.custody, vault, now: this.d.now, coSign: () => this.d.coSign?.() ?? false }
    for (const q of requests) {
      if (this.released.has(q.id)) continue
      this.released.add(q.id)
      const why = await answerRequest(releaser, state, q, me)
      if (!why) continue
      console.warn(`team custody: no share released for request ${q.id.slice(0, 10)}…: ${why}`)
      await this.recordRefusal({
        account: q.account,
        proposal: q.proposalId,
        request: q.id,
        side: 'release',
        code: null,
        reason: why,
        at: this.d.now(),
      })
    }
  }

  /** For `desk team custody status` (custody-status.ts). */
  async status(): Promise<TeamCustodyView[]> {
    const { state, store, roster } = await this.d.link.roster()
    return custodyStatus(state, roster, await store.custody.lastReleases())
  }
}

/** Failures of the executing desk that the chain names (nothing was signed). */
const SIGN_REFUSALS = new Set(['CustodySharesMissing', 'CustodyKeyMismatch'])

export const custodyRefused = (why: string) => new DeskError(TeamErrors.refused, why)
