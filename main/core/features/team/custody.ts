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
import { readFileSync, writeFileSync } from 'node:fs'
import { sha256 } from '@noble/hashes/sha256'
import {
  bytesToHex,
  concatBytes,
  hexToBytes,
  keccak256,
  recoverAddress,
  recoverTypedDataAddress,
  stringToHex,
  type Hex,
  type TypedDataDefinition,
} from 'viem'
import { sign } from 'viem/accounts'
import type { Address } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import {
  EXECUTOR_ROLES,
  TeamErrors,
  addressOfPublicKey,
  combineKey,
  custodySealEntry,
  parseRecoveryShare,
  signedEntry,
  isRecordedWrite,
  proposalStatus,
  recoveryShare,
  splitKey,
  type CustodyRecord,
  type SigningRequestRow,
  type TeamState,
} from '../../team'
import { parseEnvelope, sealShare, shareAad, type VaultCustody } from '../../vault'
import type { VaultHolder } from '../vault'
import type { TeamAdmin } from './admin'
import { digestCarrying, typedDataOf, typedDataText } from './custody-bytes'
import type { TeamLink } from './team-link'

/** How long a release may be used after it is made. */
export const RELEASE_TTL_MS = 60_000
/** How long the executing desk waits for releases before it gives up (nothing signed). */
export const DEFAULT_RELEASE_WAIT_MS = 30_000

const releaseTypes = {
  Release: [
    { name: 'request', type: 'bytes32' },
    { name: 'proposal', type: 'bytes32' },
    { name: 'to', type: 'address' },
    { name: 'holder', type: 'address' },
    { name: 'index', type: 'uint8' },
    { name: 'expiresAt', type: 'uint64' },
    { name: 'envelope', type: 'bytes32' },
  ],
} as const

function releaseTypedData(
  teamId: Hex,
  r: { request: Hex; proposal: Hex; to: string; holder: string; index: number; expiresAt: number; envelope: string },
) {
  return {
    domain: { name: 'TreasuryDeskCustody', version: '1', salt: teamId },
    types: releaseTypes,
    primaryType: 'Release' as const,
    message: {
      request: r.request,
      proposal: r.proposal,
      to: r.to as Hex,
      holder: r.holder as Hex,
      index: r.index,
      expiresAt: BigInt(r.expiresAt),
      envelope: keccak256(stringToHex(r.envelope)),
    },
  }
}

const releaseAad = (teamId: string, requestId: string, to: string, holder: string, index: number) =>
  new TextEncoder().encode(
    `custody-release|${teamId.toLowerCase()}|${requestId.toLowerCase()}|${to.toLowerCase()}|${holder.toLowerCase()}|#${index}`,
  )

/** sha256 over the sealed shares in holder order: what the chain's custody entry commits to. */
export function sharesDigest(envelopes: readonly string[]): Hex {
  return bytesToHex(sha256(concatBytes(envelopes.map((e) => new TextEncoder().encode(e)))))
}

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
        `no published identity key for ${missing.map((h) => roster.members.get(h)?.name ?? h).join(', ')}: each holder's desk publishes it when it opens the team store`,
      )
    const version = 1
    const n = holders.length + (o.recoveryFile ? 1 : 0)
    const teamId = roster.teamId
    const sealed: { holder: string; index: number; envelope: string }[] = []
    let recovery: { index: number; checksum: Hex } | null = null
    await vault.withOwnerKey(
      account,
      {
        action: 'teamApproval',
        title: `Put ${account} under team custody`,
        summary: [
          `the owner key of ${account} is split: ${o.threshold} of ${n} shares sign`,
          `shares sealed to ${holders.map((h) => roster.members.get(h)?.name ?? h).join(', ')}${o.recoveryFile ? ', and one offline recovery share' : ''}`,
          'the key then leaves this vault: no desk can sign for the account alone',
        ],
      },
      async (key) => {
        const shares = await splitKey(key, n, o.threshold)
        try {
          holders.forEach((holder, i) => {
            const index = shares[i]![shares[i]!.length - 1]!
            const env = sealShare(hexToBytes(keys.get(holder) as Hex), shares[i]!, shareAad({ teamId, account, version, index, holder }))
            sealed.push({ holder, index, envelope: JSON.stringify(env) })
          })
          if (o.recoveryFile) {
            const share = shares[n - 1]!
            const file = recoveryShare({ teamId, account, version, threshold: o.threshold, shares: n, share })
            writeFileSync(o.recoveryFile, JSON.stringify(file, null, 2) + '\n', { mode: 0o600, flag: 'wx' })
            recovery = { index: share[share.length - 1]!, checksum: file.checksum as Hex }
          }
        } finally {
          for (const s of shares) s.fill(0)
        }
      },
    )
    await store.custody.putShares(sealed.map((s) => ({ account, version, holder: s.holder, index: s.index, envelope: s.envelope })))
    const record: CustodyRecord = {
      account,
      version,
      threshold: o.threshold,
      holders: sealed.map((s) => ({ address: s.holder, index: s.index })),
      recovery,
      sharesDigest: sharesDigest(sealed.map((s) => s.envelope)),
    }
    let applied = true
    try {
      await this.d.admin.proposeCustody(record)
    } catch (e) {
      if (!(e instanceof DeskError && e.code === 'TeamChangeNeedsAdmins')) throw e
      applied = false // the key stays until the entry is in the chain (dropKeys on the next verified push)
    }
    if (applied) await this.dropHeldKeys()
    return { record, recoveryChecksum: (recovery as { checksum: Hex } | null)?.checksum ?? null, applied }
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
      const own = current.holders.find((h) => h.address === me)
      if (own) {
        const row = (await store.custody.shares(account, current.version)).find((s) => s.holder === me)
        const share = row
          ? vault.openForIdentity(
              parseEnvelope(row.envelope),
              shareAad({ teamId, account, version: current.version, index: own.index, holder: me }),
            )
          : null
        if (share) shares.push(share)
      }
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
      await this.collect(state, current, { id: p.entry as Hex }, requestId, me, shares)
      const key = await combineKey(shares, account)
      const n = p.holders.length + (p.recovery ? 1 : 0)
      const keys = await store.custody.identityKeys(p.holders)
      const missing = p.holders.filter((h) => !keys.has(h))
      if (missing.length > 0) throw new DeskError('CustodyHolderKeyMissing', `no published identity key for ${missing.join(', ')}`)
      const sealed: { holder: string; index: number; envelope: string }[] = []
      let recovery: { index: number; checksum: string } | null = null
      try {
        const next = await splitKey(key, n, p.threshold)
        try {
          p.holders.forEach((holder, i) => {
            const index = next[i]![next[i]!.length - 1]!
            const env = sealShare(
              hexToBytes(keys.get(holder) as Hex),
              next[i]!,
              shareAad({ teamId, account, version: p.version, index, holder }),
            )
            sealed.push({ holder, index, envelope: JSON.stringify(env) })
          })
          if (o.recoveryFile) {
            const share = next[n - 1]!
            const file = recoveryShare({ teamId, account, version: p.version, threshold: p.threshold, shares: n, share })
            writeFileSync(o.recoveryFile, JSON.stringify(file, null, 2) + '\n', { mode: 0o600, flag: 'wx' })
            recovery = { index: share[share.length - 1]!, checksum: file.checksum }
          }
        } finally {
          for (const s of next) s.fill(0)
        }
      } finally {
        key.fill(0)
      }
      await store.custody.putShares(
        sealed.map((s) => ({ account, version: p.version, holder: s.holder, index: s.index, envelope: s.envelope })),
      )
      const record: CustodyRecord = {
        account,
        version: p.version,
        threshold: p.threshold,
        holders: sealed.map((s) => ({ address: s.holder, index: s.index })),
        recovery,
        sharesDigest: sharesDigest(sealed.map((s) => s.envelope)),
      }
      await this.appendSeal(record, me)
      return { record, recoveryChecksum: (recovery as { checksum: string } | null)?.checksum ?? null, applied: true }
    } finally {
      for (const s of shares) s.fill(0)
    }
  }

  /** Appends the seal, signed by this operator alone, on the freshest verified state (retried when another desk took the seq). */
  private async appendSeal(record: CustodyRecord, me: string): Promise<void> {
    const { gate, store } = await this.d.link.roster()
    for (let attempt = 0; ; attempt++) {
      const state = await gate.sync()
      const entry = await signedEntry(state.roster!.teamId, custodySealEntry(state, record, me), [this.d.link.operator()])
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

  /** Waits for releases of `request` until `shares` holds the threshold (checked and opened), or gives up (nothing signed). */
  private async collect(
    state: TeamState,
    record: CustodyRecord,
    p: { id: Hex },
    request: Hex,
    me: string,
    shares: Uint8Array[],
  ): Promise<void> {
    const store = this.d.link.store!
    const used = new Set<string>()
    const wait = this.d.releaseWaitMs ?? DEFAULT_RELEASE_WAIT_MS
    const until = this.d.now() + wait
    while (shares.length < record.threshold) {
      for (const r of await store.custody.releases(request)) {
        if (used.has(r.holder)) continue
        used.add(r.holder)
        const share = await this.openRelease(state, record, p, request, me, r)
        if (share) shares.push(share)
      }
      if (shares.length >= record.threshold) return
      if (this.d.now() >= until)
        throw new DeskError(
          'CustodySharesMissing',
          `${shares.length} of ${record.threshold} shares released within ${Math.round(wait / 1000)} s: nothing was signed (the holders' desks must be running and connected)`,
          { have: shares.length, need: record.threshold },
        )
      await this.waitForRelease(250)
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
      const own = record.holders.find((h) => h.address === me)
      if (own) {
        const mine = (await store.custody.shares(address, record.version)).find((s) => s.holder === me)
        const share = mine
          ? this.d.vault
              .requireUnlocked()
              .openForIdentity(
                parseEnvelope(mine.envelope),
                shareAad({ teamId: state.roster!.teamId, account: address, version: record.version, index: own.index, holder: me }),
              )
          : null
        if (share) shares.push(share)
      }
      const used = new Set<string>(own && shares.length > 0 ? [me] : [])
      const until = now + (this.d.releaseWaitMs ?? DEFAULT_RELEASE_WAIT_MS)
      while (shares.length < record.threshold) {
        for (const r of await store.custody.releases(digest)) {
          if (used.has(r.holder)) continue
          const share = await this.openRelease(state, record, p, digest, me, r)
          used.add(r.holder)
          if (share) shares.push(share)
        }
        if (shares.length >= record.threshold) break
        if (this.d.now() >= until)
          throw new DeskError(
            'CustodySharesMissing',
            `${shares.length} of ${record.threshold} shares released for proposal ${p.id.slice(0, 10)}… within ${Math.round((this.d.releaseWaitMs ?? DEFAULT_RELEASE_WAIT_MS) / 1000)} s: nothing was signed (the holders' desks must be running and connected)`,
            { have: shares.length, need: record.threshold, proposalId: p.id },
          )
        await this.waitForRelease(250)
      }
      const key = await combineKey(shares, address)
      try {
        const signature = await sign({ hash: digest, privateKey: bytesToHex(key), to: 'hex' })
        if ((await recoverAddress({ hash: digest, signature })).toLowerCase() !== address)
          throw new DeskError('CustodyKeyMismatch', 'the combined key did not sign as the account: nothing was sent')
        return signature
      } finally {
        key.fill(0)
      }
    } finally {
      for (const s of shares) s.fill(0)
    }
  }

  /** One release checked (holder, binding, expiry, signature) and opened; null when it is refused. */
  private async openRelease(
    state: TeamState,
    record: CustodyRecord,
    p: { id: Hex },
    digest: Hex,
    me: string,
    r: { holder: string; index: number; envelope: string; expiresAt: number; signature: string },
  ): Promise<Uint8Array | null> {
    const holder = record.holders.find((h) => h.address === r.holder)
    if (!holder || holder.index !== r.index || !state.roster!.members.has(r.holder)) return null // not a holder of this split (or removed)
    if (r.expiresAt <= this.d.now()) return null // an expired release is never used
    const td = releaseTypedData(state.roster!.teamId, {
      request: digest,
      proposal: p.id,
      to: me,
      holder: r.holder,
      index: r.index,
      expiresAt: r.expiresAt,
      envelope: r.envelope,
    })
    let signer: string
    try {
      signer = (await recoverTypedDataAddress({ ...td, signature: r.signature as Hex })).toLowerCase()
    } catch {
      return null
    }
    if (signer !== r.holder) return null
    try {
      return this.d.vault
        .requireUnlocked()
        .openForIdentity(parseEnvelope(r.envelope), releaseAad(state.roster!.teamId, digest, me, r.holder, r.index))
    } catch {
      return null
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
    for (const q of requests) {
      if (this.released.has(q.id)) continue
      this.released.add(q.id)
      const why = await this.release(state, q, me)
      if (why) console.warn(`team custody: no share released for request ${q.id.slice(0, 10)}…: ${why}`)
    }
  }

  /** Releases this member's share for `q`, or says why not (null: released, or not a holder). */
  private async release(state: TeamState, q: SigningRequestRow, me: string): Promise<string | null> {
    const record = state.custody.get(q.account)
    const holder = record?.holders.find((h) => h.address === me)
    if (!record || !holder || q.requester === me) return null // not asked of this desk (its own request uses its share directly)
    if (record.version !== q.version) return `split version ${q.version} is retired (now ${record.version})`
    const resplit = resplitOf(q.typedData)
    if (resplit) {
      const pending = state.custodyPending.get(q.account)
      if (!pending || pending.entry !== q.proposalId || pending.sealer !== q.requester || pending.version !== resplit.version)
        return 'no re-split of this account names this requester as its sealer'
      if (q.id !== resplitRequestId(state.roster!.teamId, q.account, pending.version, q.requester))
        return 'the re-split request is not the one its entry names'
      return this.releaseTo(state, q, me, holder.index, record.version)
    }
    const p = state.proposals.get(q.proposalId)
    if (!p || p.account !== q.account) return 'no such proposal of the team for this account'
    const status = proposalStatus(p, state.roster!, this.d.now())
    if (status !== 'approved') return `the proposal is ${status}`
    if (isRecordedWrite(p) && !(this.d.coSign?.() ?? false))
      return 'a write the policy allows outright: this member co-signs those only with the co-signer rule on'
    const requester = state.roster!.members.get(q.requester)
    if (!requester || !requester.roles.some((r) => EXECUTOR_ROLES.includes(r))) return 'the requester may not execute'
    let td: TypedDataDefinition
    try {
      td = typedDataOf(q.typedData)
    } catch {
      return 'the request is not typed data'
    }
    if (digestCarrying(p, td) !== q.id) return 'the bytes to sign do not carry exactly the approved action'
    return this.releaseTo(state, q, me, holder.index, record.version)
  }

  /** Seals this holder's share to the requester for request `q` (its proposal or re-split entry), signed, for one minute. */
  private async releaseTo(state: TeamState, q: SigningRequestRow, me: string, index: number, version: number): Promise<string | null> {
    const store = this.d.link.store!
    const vault = this.d.vault.requireUnlocked()
    const mine = (await store.custody.shares(q.account, version)).find((s) => s.holder === me)
    if (!mine) return 'this holder has no stored share'
    const [pub] = [...(await store.custody.identityKeys([q.requester])).values()]
    if (!pub || addressOfPublicKey(pub) !== q.requester) return "the requester's identity key is not published"
    const teamId = state.roster!.teamId
    const share = vault.openForIdentity(
      parseEnvelope(mine.envelope),
      shareAad({ teamId, account: q.account, version: version, index: index, holder: me }),
    )
    if (!share) return 'this desk cannot open its share (not sealed to its identity key)'
    let envelope: string
    try {
      envelope = JSON.stringify(sealShare(hexToBytes(pub as Hex), share, releaseAad(teamId, q.id, q.requester, me, index)))
    } finally {
      share.fill(0)
    }
    const expiresAt = this.d.now() + RELEASE_TTL_MS
    const td2 = releaseTypedData(teamId, {
      request: q.id as Hex,
      proposal: q.proposalId as Hex,
      to: q.requester,
      holder: me,
      index: index,
      expiresAt,
      envelope,
    })
    const signature = await vault.signAsIdentity(td2 as unknown as Parameters<typeof vault.signAsIdentity>[0])
    await store.custody.putRelease({ requestId: q.id, holder: me, index: index, envelope, expiresAt, signature })
    return null
  }

  /** For `desk team custody status`: each team-held account, its holders, T, and the last release. */
  async status(): Promise<
    {
      account: Address
      version: number
      threshold: number
      holders: { address: Address; name: string | null }[]
      recovery: boolean
      lastRelease: { at: number; holder: Address; proposalId: string } | null
    }[]
  > {
    const { state, store, roster } = await this.d.link.roster()
    const last = await store.custody.lastReleases()
    return [...state.custody.values()].map((r) => {
      const l = last.get(r.account)
      return {
        account: r.account as Address,
        version: r.version,
        threshold: r.threshold,
        holders: r.holders.map((h) => ({ address: h.address as Address, name: roster.members.get(h.address)?.name ?? null })),
        recovery: r.recovery !== null,
        lastRelease: l ? { at: l.at.getTime(), holder: l.holder as Address, proposalId: l.proposalId } : null,
      }
    })
  }
}

export const custodyRefused = (why: string) => new DeskError(TeamErrors.refused, why)

/** The request id of a re-split: bound to the team, the account, the new version and the sealer. */
export function resplitRequestId(teamId: string, account: string, version: number, sealer: string): Hex {
  return keccak256(stringToHex(`custody-resplit|${teamId.toLowerCase()}|${account.toLowerCase()}|v${version}|${sealer.toLowerCase()}`))
}

function resplitOf(text: string): { account: string; version: number } | null {
  try {
    const o = JSON.parse(text) as { resplit?: { account?: unknown; version?: unknown } }
    return o.resplit && typeof o.resplit.account === 'string' && typeof o.resplit.version === 'number'
      ? { account: o.resplit.account, version: o.resplit.version }
      : null
  } catch {
    return null
  }
}
