/**
 * Child process of the team takeover test: a real desk core (desk A's data directory, vault and
 * team configuration) executes one approved proposal and is SIGKILLed (no cleanup, no `finally`)
 * the moment the write pipeline's beforeSend has stored the signed bytes in the team store, before
 * anything is sent. Prints `stored` just before the kill.
 * Env: DATA_DIR, TRADING_URL, WS_URL, EARN_URL, CHAIN_ID, PASSPHRASE, PROPOSAL_ID, LEASE_MS.
 */
import type { SandboxHandle } from '../../sandbox'
import { TeamGate } from '../../main/core/features/team'
import { startDeskOnSharedSandbox } from '../../main/testing/team-desks'

const env = (k: string): string => {
  const v = process.env[k]
  if (!v) throw new Error(`${k} is not set`)
  return v
}

const original = TeamGate.prototype.beforeSend
TeamGate.prototype.beforeSend = async function (this: TeamGate, signed) {
  await original.call(this, signed)
  process.stdout.write('stored\n')
  process.kill(process.pid, 'SIGKILL')
  await new Promise(() => {})
}

const sandbox = {
  tradingUrl: env('TRADING_URL'),
  wsUrl: env('WS_URL'),
  earnUrl: env('EARN_URL'),
  chainId: Number(env('CHAIN_ID')),
} as unknown as SandboxHandle
const desk = await startDeskOnSharedSandbox(sandbox, {
  dataDir: env('DATA_DIR'),
  team: { leaseMs: Number(env('LEASE_MS')), recoverEveryMs: 600_000 },
})
await desk.call('vault.unlock', { passphrase: env('PASSPHRASE') })
for (let i = 0; (await desk.call<{ state: string }>('team.status')).state !== 'live'; i++) {
  if (i > 200) throw new Error('the team store did not open')
  await new Promise((r) => setTimeout(r, 50))
}
desk.autoConfirm(env('PASSPHRASE'))
await desk.call('team.execute', { id: env('PROPOSAL_ID') })
process.stdout.write('sent: the crash point was never reached\n')
process.exit(3)
