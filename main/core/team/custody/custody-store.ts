/**
 * Custody rows in the team store (migration 5): members' identity public keys, the sealed shares of
 * each split, the signing requests of executing desks and the releases of holders. Rows as stored:
 * nothing in them is trusted. An identity key is accepted only when its address is the key's own
 * hash; a share or a release opens only with its holder's or recipient's identity key and for what
 * it is bound to; a release's signature is checked by the desk that uses it.
 */
import type pg from 'pg'
import { publicKeyToAddress } from 'viem/accounts'
import type { Hex } from 'viem'

export type WithClient = <T>(what: string, fn: (c: pg.PoolClient) => Promise<T>) => Promise<T>

export interface ShareRow {
  account: string
  version: number
  holder: string
  index: number
  envelope: string
}

export interface SigningRequestRow {
  id: string
  proposalId: string
  account: string
  version: number
  requester: string
  typedData: string
  createdAt: Date
}

export interface ReleaseRow {
  requestId: string
  holder: string
  index: number
  envelope: string
  expiresAt: number
  signature: string
}

/** The address a public key (hex, uncompressed 65 bytes or compressed 33) belongs to; null when it is not a key. */
export function addressOfPublicKey(publicKey: string): string | null {
  try {
    if (!/^0x04[0-9a-f]{128}$/i.test(publicKey)) return null
    return publicKeyToAddress(publicKey as Hex).toLowerCase()
  } catch {
    return null
  }
}

export class CustodyStore {
  constructor(private readonly withClient: WithClient) {}

  /** Publishes this member's identity public key (uncompressed); self-certifying, so anyone may store it. */
  async publishIdentityKey(address: string, publicKey: string): Promise<void> {
    if (addressOfPublicKey(publicKey) !== address.toLowerCase()) throw new Error('the public key is not this address')
    await this.withClient('publish identity key', (c) =>
      c.query('INSERT INTO team_identity_keys (address, public_key) VALUES ($1, $2) ON CONFLICT (address) DO NOTHING', [
        address.toLowerCase(),
        publicKey.toLowerCase(),
      ]),
    )
  }

  /** The identity public keys of `addresses` that verify (a row whose key is not its address's is ignored). */
  async identityKeys(addresses: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.withClient('read identity keys', async (c) => {
      const r = await c.query<{ address: string; public_key: string }>(
        'SELECT address, public_key FROM team_identity_keys WHERE address = ANY($1)',
        [addresses.map((a) => a.toLowerCase())],
      )
      return r.rows
    })
    return new Map(rows.filter((r) => addressOfPublicKey(r.public_key) === r.address).map((r) => [r.address, r.public_key]))
  }

  async putShares(rows: readonly ShareRow[]): Promise<void> {
    await this.withClient('store shares', async (c) => {
      await c.query('BEGIN')
      try {
        for (const r of rows)
          await c.query('INSERT INTO team_custody_shares (account, version, holder, share_index, envelope) VALUES ($1, $2, $3, $4, $5)', [
            r.account,
            r.version,
            r.holder,
            r.index,
            r.envelope,
          ])
        await c.query('COMMIT')
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {})
        throw e
      }
    })
  }

  /** The stored shares of one split, in holder order (the order the chain's sharesDigest covers). */
  async shares(account: string, version: number): Promise<ShareRow[]> {
    return this.withClient('read shares', async (c) => {
      const r = await c.query<{ account: string; version: number; holder: string; share_index: number; envelope: string }>(
        'SELECT account, version, holder, share_index, envelope FROM team_custody_shares WHERE account = $1 AND version = $2 ORDER BY holder',
        [account.toLowerCase(), version],
      )
      return r.rows.map((x) => ({ account: x.account, version: x.version, holder: x.holder, index: x.share_index, envelope: x.envelope }))
    })
  }

  async putRequest(r: Omit<SigningRequestRow, 'createdAt'>): Promise<void> {
    await this.withClient('store signing request', (c) =>
      c.query(
        'INSERT INTO team_custody_requests (id, proposal_id, account, version, requester, typed_data) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT ' +
          '(id) DO NOTHING',
        [r.id, r.proposalId, r.account, r.version, r.requester, r.typedData],
      ),
    )
  }

  /** Requests made since `since` (the holders' desks answer the recent ones). */
  async requests(since: Date): Promise<SigningRequestRow[]> {
    return this.withClient('read signing requests', async (c) => {
      const r = await c.query<{
        id: string
        proposal_id: string
        account: string
        version: number
        requester: string
        typed_data: string
        created_at: Date
      }>('SELECT * FROM team_custody_requests WHERE created_at >= $1 ORDER BY created_at', [since])
      return r.rows.map((x) => ({
        id: x.id,
        proposalId: x.proposal_id,
        account: x.account,
        version: x.version,
        requester: x.requester,
        typedData: x.typed_data,
        createdAt: x.created_at,
      }))
    })
  }

  async putRelease(r: ReleaseRow): Promise<void> {
    await this.withClient('store release', (c) =>
      c.query(
        'INSERT INTO team_custody_releases (request_id, holder, share_index, envelope, expires_at, signature) VALUES ($1, $2, $3, $4, $5, $6) ON ' +
          'CONFLICT DO NOTHING',
        [r.requestId, r.holder, r.index, r.envelope, r.expiresAt, r.signature],
      ),
    )
  }

  async releases(requestId: string): Promise<ReleaseRow[]> {
    return this.withClient('read releases', async (c) => {
      const r = await c.query<{
        request_id: string
        holder: string
        share_index: number
        envelope: string
        expires_at: string
        signature: string
      }>(
        'SELECT request_id, holder, share_index, envelope, expires_at, signature FROM team_custody_releases WHERE request_id = $1 ORDER BY holder',
        [requestId],
      )
      return r.rows.map((x) => ({
        requestId: x.request_id,
        holder: x.holder,
        index: x.share_index,
        envelope: x.envelope,
        expiresAt: Number(x.expires_at),
        signature: x.signature,
      }))
    })
  }

  /** The last release of each account's shares (for `desk team custody status`). */
  async lastReleases(): Promise<Map<string, { at: Date; holder: string; proposalId: string }>> {
    const rows = await this.withClient('read last releases', async (c) => {
      const r = await c.query<{ account: string; holder: string; proposal_id: string; created_at: Date }>(
        `SELECT DISTINCT ON (q.account) q.account, l.holder, q.proposal_id, l.created_at
           FROM team_custody_releases l JOIN team_custody_requests q ON q.id = l.request_id
           ORDER BY q.account, l.created_at DESC`,
      )
      return r.rows
    })
    return new Map(rows.map((x) => [x.account, { at: x.created_at, holder: x.holder, proposalId: x.proposal_id }]))
  }
}
