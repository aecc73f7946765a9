#!/usr/bin/env node
// `npm run team-db [-- --data DIR] [--port N]`: a PostgreSQL for trying team mode on one machine,
// started the way the tests start theirs (main/testing/postgres.ts): Debian's server binaries,
// loopback only, a `desk` role with a password. Prints the connection string and the password,
// runs until Ctrl-C, then stops the server. Without --data the cluster lives in a temp directory
// and is removed on exit; with --data DIR it is kept (and re-used next time).
import { join, resolve } from 'node:path'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const USAGE = `usage: npm run team-db [-- --data DIR] [--port N]
  --data DIR   keep the cluster in DIR (created when missing, re-used when present)
  --port N     listen on 127.0.0.1:N (default: a free port)
  TEAM_DB_PASSWORD   the desk role's password (default: a new random one each start)
`
const args = process.argv.slice(2)
const opts = {}
for (let i = 0; i < args.length; i++) {
  const a = args[i]
  if (a === '--help' || a === '-h') {
    process.stdout.write(USAGE)
    process.exit(0)
  } else if (a === '--data' && args[i + 1]) opts.dataDir = resolve(args[++i])
  else if (a === '--port' && /^[0-9]{1,5}$/.test(args[i + 1] ?? '')) opts.port = Number(args[++i])
  else {
    process.stderr.write(`team-db: unknown or incomplete argument ${a}\n${USAGE}`)
    process.exit(2)
  }
}
if (process.env.TEAM_DB_PASSWORD) opts.password = process.env.TEAM_DB_PASSWORD
if (opts.dataDir) opts.durable = true

// Ctrl-C while the server is still starting stops it as soon as it is up (nothing left behind).
let db
let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  if (!db) return // startPostgres returns soon; the code below sees `stopping`
  process.stdout.write('team-db: stopping…\n')
  await db.stop()
  process.exit(0)
}
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => void stop())

const { tsImport } = await import('tsx/esm/api')
const { startPostgres } = await tsImport(join(root, 'main/testing/postgres.ts'), import.meta.url)
try {
  db = await startPostgres(opts)
} catch (e) {
  process.stderr.write(`team-db: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
}
if (stopping) {
  await db.stop()
  process.exit(0)
}
process.stdout.write(
  [
    'Team store (PostgreSQL) running on this machine.',
    `  connection string: ${db.connectionString}`,
    `  password:          ${db.password}`,
    `  data:              ${opts.dataDir ?? `${db.dir} (temporary, removed on exit)`}`,
    'Give both to each desk that joins (the password goes into the desk vault, not a file).',
    'Ctrl-C stops the server.',
    '',
  ].join('\n'),
)
setInterval(() => {}, 1 << 30) // stay up until a signal
