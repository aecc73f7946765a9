/** Test support: operators with identity keys and a chain built by them. */
import type { Hex } from 'viem'
import { genesisEntry, policyEntry, rosterEntry } from '../authoring'
import { ChainVerifier, toStoredRow, type StoredRow, type TeamState } from '../chain'
import { signedEntry, type SignedEntry, type UnsignedEntry } from '../entry'
import { identitySigner, newIdentityKey, type TeamSigner } from '../identity'
import type { MemberInput, RosterChange, Role } from '../roster'

export interface Operator extends TeamSigner {
  name: string
  key: Hex
}

export function operator(name: string): Operator {
  const key = newIdentityKey()
  return { ...identitySigner(key), name, key }
}

export const asMember = (o: Operator, roles: Role[]): MemberInput => ({ address: o.address, name: o.name, roles })

/** A chain under construction: each step signs with the given admins and verifies what it built. */
export class ChainBuilder {
  readonly entries: SignedEntry[] = []
  private verifier = new ChainVerifier()
  state!: TeamState

  private constructor(readonly teamId: Hex) {}

  static async genesis(admin: Operator, members: MemberInput[], adminQuorum = 1, signers: Operator[] = [admin]): Promise<ChainBuilder> {
    const { teamId, entry } = genesisEntry({ teamName: 'Desk team', adminQuorum, members })
    const b = new ChainBuilder(teamId)
    await b.push(entry, signers)
    return b
  }

  private async push(e: UnsignedEntry, signers: Operator[]): Promise<SignedEntry> {
    const s = await signedEntry(this.teamId, e, signers)
    this.entries.push(s)
    const report = await this.verifier.add([toStoredRow(s)])
    if (!report.ok) throw new Error(`fixture built a bad entry: ${report.broken?.reason}`)
    this.state = report.state
    return s
  }

  async roster(changes: RosterChange[], signers: Operator[]): Promise<SignedEntry> {
    return this.push(rosterEntry(this.state, changes), signers)
  }

  async policy(rules: unknown[], signers: Operator[]): Promise<SignedEntry> {
    return this.push(policyEntry(this.state, rules), signers)
  }

  rows(): StoredRow[] {
    return this.entries.map(toStoredRow)
  }
}
