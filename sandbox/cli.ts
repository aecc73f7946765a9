/**
 * `npm run sandbox -- [--port N] [--earn-port N] [--seed FILE|--seed default|--no-seed]
 *   [--data-dir D] [--block-ms N] [--no-rate-limits] [--earn-pending-seconds N] [--bot-ms N]
 *   [--mark-ms N] [--mark-seed N] [--mark-step-bps N] [--mark-band-bps N] [--earn-tick-ms N]`
 * Runs the sandbox standalone on 127.0.0.1 and prints its URLs. Ctrl-C stops it cleanly
 * (and writes the data directory when one is given).
 */
import { parseArgs } from 'node:util'
import { startSandbox, type StartSandboxOptions } from './index'
import { DEV_OWNERS } from './scenario/dev-keys'
import { SANDBOX_DEFAULT_PORTS } from './ports'

const USAGE = `usage: npm run sandbox -- [--port N] [--earn-port N] [--seed FILE | --seed default | --no-seed]
                          [--data-dir DIR] [--block-ms N] [--no-rate-limits]
                          [--earn-pending-seconds N] [--bot-ms N]
                          [--mark-ms N] [--mark-seed N] [--mark-step-bps N] [--mark-band-bps N]
                          [--earn-tick-ms N]`

function intArg(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > 2 ** 31) {
    throw new Error(`--${name} must be an integer >= ${min}, got "${value}"`)
  }
  return Number(value)
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'earn-port': { type: 'string' },
      seed: { type: 'string' },
      'no-seed': { type: 'boolean' },
      'data-dir': { type: 'string' },
      'block-ms': { type: 'string' },
      'no-rate-limits': { type: 'boolean' },
      'earn-pending-seconds': { type: 'string' },
      'bot-ms': { type: 'string' },
      'mark-ms': { type: 'string' },
      'mark-seed': { type: 'string' },
      'mark-step-bps': { type: 'string' },
      'mark-band-bps': { type: 'string' },
      'earn-tick-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    console.log(USAGE)
    return
  }
  const opts: StartSandboxOptions = { log: (l) => console.log(l) }
  // Default to the ports the desk's sandbox network is configured with, so `desk` and the app
  // find this sandbox without any set-up; `--port 0` lets the OS pick.
  const port = intArg('port', values.port)
  opts.port = port ?? SANDBOX_DEFAULT_PORTS.trading
  const earnPort = intArg('earn-port', values['earn-port'])
  if (earnPort !== undefined) opts.earnPort = earnPort
  // The earn pool gets its own server only when it has its own port.
  else if (port === undefined && SANDBOX_DEFAULT_PORTS.earn !== SANDBOX_DEFAULT_PORTS.trading) opts.earnPort = SANDBOX_DEFAULT_PORTS.earn
  opts.seed = values['no-seed'] ? false : values.seed === undefined || values.seed === 'default' ? true : values.seed
  if (values['data-dir']) opts.dataDir = values['data-dir']
  const blockMs = intArg('block-ms', values['block-ms'], 10)
  if (blockMs !== undefined) opts.blockMs = blockMs
  if (values['no-rate-limits']) opts.rateLimits = false
  const pending = intArg('earn-pending-seconds', values['earn-pending-seconds'])
  if (pending !== undefined) opts.earnPendingSeconds = pending
  const botMs = intArg('bot-ms', values['bot-ms'])
  if (botMs !== undefined) opts.botIntervalMs = botMs
  const markMs = intArg('mark-ms', values['mark-ms'])
  if (markMs !== undefined) opts.markIntervalMs = markMs
  const markSeed = intArg('mark-seed', values['mark-seed'])
  if (markSeed !== undefined) opts.markSeed = markSeed
  const stepBps = intArg('mark-step-bps', values['mark-step-bps'])
  if (stepBps !== undefined) opts.markStepBps = stepBps
  const bandBps = intArg('mark-band-bps', values['mark-band-bps'])
  if (bandBps !== undefined) opts.markBandBps = bandBps
  const earnTick = intArg('earn-tick-ms', values['earn-tick-ms'])
  if (earnTick !== undefined) opts.earnTickMs = earnTick

  const h = await startSandbox(opts)
  console.log(`trading  ${h.tradingUrl}   (POST /info, POST /trade)`)
  console.log(`ws       ${h.wsUrl}`)
  console.log(`earn     ${h.earnUrl}/api/v3/earn`)
  console.log(`admin    ${h.adminUrl}   (GET /state, POST /faults, GET /ground-truth, …)`)
  console.log(`faucet   ${h.tradingUrl}/sandbox/deposit`)
  console.log(`chain id ${h.chainId}`)
  // A desk (app or CLI) points its sandbox network here with exactly this line (each data directory once).
  console.log(`point a desk here: desk networks set sandbox --trading-url ${h.tradingUrl} --ws-url ${h.wsUrl} --earn-url ${h.earnUrl}`)
  if (opts.seed) {
    console.log('dev owners (PUBLIC development keys, sandbox funds only):')
    for (const k of DEV_OWNERS) console.log(`  owner ${k.index}  ${k.address}  ${k.privateKey}`)
  }
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: stopping sandbox…`)
    h.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(e instanceof Error ? e.message : String(e))
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

main().catch((e: unknown) => {
  console.error(`sandbox: ${e instanceof Error ? e.message : String(e)}`)
  console.error(USAGE)
  process.exit(1)
})
