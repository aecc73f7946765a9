/**
 * Test support for the write side: a vault stand-in holding the sandbox's public development
 * keys (never real funds), and a WriteSide wired to an in-process sandbox. Used by the
 * integration and fault tests; not imported by production code.
 */
import { bytesToHex, keccak256, type Address, type Hex, type TypedDataDefinition } from 'viem'
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts'
import type { AgentSlot, SignerRef } from '../core/vault/types'
import type { WriteVault } from '../core/session/write-side'

export class DevVault implements WriteVault {
  private readonly owners = new Map<string, Hex>()
  private readonly agents = new Map<string, Hex>()
  /** Every signature made, for "never signed twice" assertions. */
  signatures = 0

  addOwner(privateKey: Hex): Address {
    const a = privateKeyToAccount(privateKey).address.toLowerCase() as Address
    this.owners.set(a, privateKey)
    return a
  }

  addAgent(owner: Address, slot: AgentSlot, privateKey: Hex): void {
    this.agents.set(`${owner.toLowerCase()}:${slot}`, privateKey)
  }

  private key(ref: SignerRef): Hex | undefined {
    return ref.role === 'owner' ? this.owners.get(ref.owner.toLowerCase()) : this.agents.get(`${ref.owner.toLowerCase()}:${ref.slot}`)
  }

  addressOf(ref: SignerRef): Address | null {
    const k = this.key(ref)
    return k ? (privateKeyToAccount(k).address.toLowerCase() as Address) : null
  }

  listAccounts(): { address: Address; watchOnly: boolean }[] {
    return [...this.owners.keys()].map((a) => ({ address: a as Address, watchOnly: false }))
  }

  async signLegacy(ref: SignerRef, payload: Uint8Array): Promise<Hex> {
    const k = this.key(ref)
    if (!k) throw new Error('no key')
    this.signatures++
    return sign({ hash: keccak256(payload), privateKey: k, to: 'hex' })
  }

  async signTypedData(ref: SignerRef, typedData: TypedDataDefinition): Promise<Hex> {
    const k = this.key(ref)
    if (!k) throw new Error('no key')
    this.signatures++
    return privateKeyToAccount(k).signTypedData(typedData as Parameters<ReturnType<typeof privateKeyToAccount>['signTypedData']>[0])
  }

  async generateAgentKey(owner: Address, slot: AgentSlot, options: { replace?: boolean } = {}): Promise<Address> {
    const id = `${owner.toLowerCase()}:${slot}`
    if (this.agents.has(id) && !options.replace) throw new Error('AgentSlotOccupied')
    const k = generatePrivateKey()
    this.agents.set(id, k)
    return privateKeyToAccount(k).address.toLowerCase() as Address
  }

  async retireAgentKey(owner: Address, slot: AgentSlot): Promise<Address> {
    const id = `${owner.toLowerCase()}:${slot}`
    const k = this.agents.get(id)
    if (!k) throw new Error('AgentKeyNotFound')
    this.agents.delete(id)
    return privateKeyToAccount(k).address.toLowerCase() as Address
  }
}

export { bytesToHex }
