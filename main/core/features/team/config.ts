/**
 * Where this desk's team store is: `<dataDir>/team.json` (connection string, this desk's lease name,
 * the genesis it trusts). Never the password: that is sealed in the vault (`teamStorePassword`).
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { DeskError } from '../../errors/desk-error'

export interface TeamConfig {
  connectionString: string
  /** names this desk as an execution lease holder */
  deskId: string
  /** the genesis digest this desk saw first (a replaced chain is refused) */
  genesisDigest?: string
  /** this member's co-signer rule (custody.ts): release a share for writes the team policy allows outright */
  coSign?: boolean
}

const FILE = 'team.json'

export function readTeamConfig(dataDir: string): TeamConfig | null {
  const file = join(dataDir, FILE)
  if (!existsSync(file)) return null
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    throw new DeskError('TeamConfigCorrupt', `${file} is not valid JSON; fix or move it away`)
  }
  const o = raw as Partial<TeamConfig>
  if (typeof o?.connectionString !== 'string' || typeof o.deskId !== 'string')
    throw new DeskError('TeamConfigCorrupt', `${file} lacks connectionString/deskId`)
  if (/:[^/@]*@/.test(o.connectionString.replace(/^postgres(ql)?:\/\//, '')))
    throw new DeskError('TeamConfigCorrupt', `${file} holds a password in the connection string; the password belongs in the vault`)
  return {
    connectionString: o.connectionString,
    deskId: o.deskId,
    ...(typeof o.genesisDigest === 'string' ? { genesisDigest: o.genesisDigest } : {}),
    ...(o.coSign === true ? { coSign: true } : {}),
  }
}

export function writeTeamConfig(dataDir: string, c: TeamConfig): void {
  const file = join(dataDir, FILE)
  writeFileSync(`${file}.tmp`, JSON.stringify(c, null, 2), { mode: 0o600 })
  renameSync(`${file}.tmp`, file)
}

export function removeTeamConfig(dataDir: string): void {
  rmSync(join(dataDir, FILE), { force: true })
}

export function newDeskId(): string {
  return `${hostname().slice(0, 40)}-${randomBytes(4).toString('hex')}`
}

/** The connection string without any password it might carry (the password is given apart). */
export function withoutPassword(connectionString: string): string {
  try {
    const u = new URL(connectionString)
    if (u.password === '') return connectionString
    u.password = ''
    return u.toString()
  } catch {
    throw new DeskError('TeamBadInput', 'the team store connection string cannot be parsed')
  }
}

/** Host, port, database, user and sslmode for display (no password). */
export function storeLocation(
  connectionString: string,
): { host: string; port: number; database: string; user: string; sslmode: string } | null {
  try {
    const u = new URL(connectionString)
    return {
      host: u.hostname,
      port: Number(u.port || 5432),
      database: decodeURIComponent(u.pathname.replace(/^\//, '')),
      user: decodeURIComponent(u.username),
      sslmode: u.searchParams.get('sslmode') ?? 'disable',
    }
  } catch {
    return null
  }
}
