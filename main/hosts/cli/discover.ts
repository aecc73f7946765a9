/**
 * The command groups, listed once (a static list, so the CLI bundles into one file and starts
 * without scanning a directory). Adding a group: one import and one entry here.
 */
import agents from './commands/agents'
import earn from './commands/earn'
import journal from './commands/journal'
import keys from './commands/keys'
import markets, { assets } from './commands/markets'
import networks from './commands/networks'
import orders from './commands/orders'
import policy, { addresses, halt, resume } from './commands/policy'
import repay from './commands/repay'
import { alerts, exports, pnl } from './commands/reports'
import settle from './commands/settle'
import status from './commands/status'
import type { CommandGroup } from './router'

export const COMMAND_GROUPS: readonly CommandGroup[] = [addresses, agents, alerts, assets, earn, exports, halt, journal, keys, markets, networks, orders, pnl, policy, repay, resume, settle, status]

export async function discoverGroups(): Promise<CommandGroup[]> {
  return [...COMMAND_GROUPS]
}
