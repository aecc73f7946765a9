/**
 * A real PostgreSQL for tests, benches and `npm run team-db`: Debian's server binaries, initdb into
 * a fresh directory, one loopback port picked here, a password role (scram-sha-256) the desk logs in
 * with, and a unix socket in the same directory for the superuser (tests tamper through it).
 * Never a mock: team mode's guarantees are about what a real server lets people do.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface StartPostgresOptions {
  /** Keep the cluster here (initialised when empty) and never delete it; default: a temp dir removed on stop. */
  dataDir?: string
  /** Loopback port; default: a free one picked here. */
  port?: number
  /** Password of the desk role; default: 24 random bytes. */
  password?: string
  /** Durable settings (fsync on) for a cluster a person keeps; tests default to fast, crash-unsafe ones. */
  durable?: boolean
}

export interface PostgresHandle {
  /** postgresql://desk@127.0.0.1:PORT/team, without the password (it is given apart, as the desk takes it). */
  connectionString: string
  password: string
  port: number
  /** Superuser over the unix socket (trust): for tests that play a database administrator. */
  adminConfig: pg.ClientConfig
  dir: string
  /** Stops the server, keeping the data (a database outage); `startServer` brings it back on the same port. */
  stopServer(): Promise<void>
  startServer(): Promise<void>
  /** Stops the server and removes the directory (unless it was given). Idempotent. */
  stop(): Promise<void>
}

export const DESK_ROLE = 'desk'
export const TEAM_DATABASE = 'team'

/** Where initdb and pg_ctl live: $PG_BIN, then `pg_config --bindir`, then Debian's versioned directories, newest first. */
export function postgresBinDir(): string {
  const candidates: string[] = []
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN)
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim())
  } catch {
    // pg_config is in libpq-dev, often absent.
  }
  const debian = '/usr/lib/postgresql'
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)) : []
  for (const v of versions.sort((a, b) => Number(b) - Number(a))) candidates.push(join(debian, v, 'bin'))
  const found = candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')))
  if (!found)
    throw new Error(
      `PostgreSQL server binaries not found (looked in ${candidates.join(', ')}); install Debian's postgresql package or set PG_BIN`,
    )
  return found
}

/** initdb refuses to run as root: as root, the server runs as the postgres system user. */
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0

function run(bin: string, args: string[], what: string): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
  const r = spawnSync(cmd, argv, { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${(r.stderr || r.stdout || '').trim().slice(-2000)}`)
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
  return { uid, gid }
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

// Servers still running when the process exits (a failed test, a thrown setup) are stopped here.
const live = new Set<() => void>()
let exitHookInstalled = false
function onExit(fn: () => void): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.once('exit', () => {
      for (const f of live) f()
    })
  }
  live.add(fn)
  return () => live.delete(fn)
}

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<PostgresHandle> {
  const bin = postgresBinDir()
  const owned = opts.dataDir === undefined
  const dir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'team-pg-'))
  const data = join(dir, 'data')
  const ids = asRoot ? postgresIds() : null
  mkdirSync(dir, { recursive: true })
  if (ids) chownSync(dir, ids.uid, ids.gid)
  const password = opts.password ?? randomBytes(24).toString('base64url')
  const port = opts.port ?? (await freeLoopbackPort())

  const fresh = !existsSync(join(data, 'PG_VERSION'))
  if (fresh) {
    try {
      // Local socket: trust (only the server's own user and root reach it); TCP: scram-sha-256 passwords.
      run(
        join(bin, 'initdb'),
        ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
        'initdb',
      )
    } catch (e) {
      if (owned) rmSync(dir, { recursive: true, force: true })
      else rmSync(data, { recursive: true, force: true })
      throw e
    }
  }
  const settings = [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${dir}'`,
    `password_encryption = 'scram-sha-256'`,
    ...(opts.durable
      ? []
      : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off', 'shared_buffers = 16MB', 'max_connections = 100']),
  ]
  // Later lines win in postgresql.conf: a kept cluster may be started on another port next time.
  appendFileSync(join(data, 'postgresql.conf'), `\n# startPostgres ${new Date().toISOString()}\n${settings.join('\n')}\n`)
  const log = join(dir, 'server.log')
  if (ids && !existsSync(log)) {
    writeFileSync(log, '')
    chownSync(log, ids.uid, ids.gid)
  }

  let running = false
  const pgCtl = (args: string[], what: string) => run(join(bin, 'pg_ctl'), ['-D', data, ...args], what)
  const startServer = async () => {
    pgCtl(['-l', log, '-w', '-t', '30', 'start'], 'pg_ctl start')
    running = true
  }
  const stopServer = async () => {
    if (!running) return
    running = false
    try {
      pgCtl(['-m', 'fast', '-w', 'stop'], 'pg_ctl stop')
    } catch (e) {
      // Already gone (a terminal's Ctrl-C reaches the server too): nothing left to stop.
      if (existsSync(join(data, 'postmaster.pid'))) throw e
    }
  }
  const emergency = () => {
    if (running)
      spawnSync(
        asRoot ? 'runuser' : join(bin, 'pg_ctl'),
        asRoot
          ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']
          : ['-D', data, '-m', 'immediate', 'stop'],
      )
    running = false
    if (owned) rmSync(dir, { recursive: true, force: true })
  }
  const unhook = onExit(emergency)

  const adminConfig: pg.ClientConfig = { host: dir, port, user: 'postgres', database: 'postgres' }
  try {
    await startServer()
    const admin = new pg.Client(adminConfig)
    await admin.connect()
    try {
      const quoted = `'${password.replace(/'/g, "''")}'`
      const role = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [DESK_ROLE])
      await admin.query(`${role.rowCount ? 'ALTER' : 'CREATE'} ROLE ${DESK_ROLE} LOGIN PASSWORD ${quoted}`)
      const db = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEAM_DATABASE])
      if (!db.rowCount) await admin.query(`CREATE DATABASE ${TEAM_DATABASE} OWNER ${DESK_ROLE}`)
    } finally {
      await admin.end()
    }
  } catch (e) {
    emergency()
    unhook()
    throw e
  }

  let stopped = false
  return {
    connectionString: `postgresql://${DESK_ROLE}@127.0.0.1:${port}/${TEAM_DATABASE}`,
    password,
    port,
    adminConfig: { ...adminConfig, database: TEAM_DATABASE },
    dir,
    stopServer,
    startServer,
    async stop() {
      if (stopped) return
      stopped = true
      try {
        await stopServer()
      } finally {
        unhook()
        if (owned) rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
