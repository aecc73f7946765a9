/**
 * The command groups, listed once (a static list, so the CLI bundles into one file and starts
 * without scanning a directory). Each group's module loads only when that group is used: `desk
 * --help` and `desk --version` evaluate the router and this table, never a command module or
 * the core behind it. Adding a group: one entry here (its summary must match the module's; a
 * test checks).
 */
import type { CommandGroup, LazyGroup } from './router'

const lazy = (name: string, summary: string, load: () => Promise<CommandGroup>): LazyGroup => ({ name, summary, load })

export const COMMAND_GROUPS: readonly LazyGroup[] = [
  lazy('addresses', 'the destination address book (cooling-off on new entries)', () =>
    import('./commands/policy').then((m) => m.addresses),
  ),
  lazy('agents', 'agent (API wallet) slots of an owner', () => import('./commands/agents').then((m) => m.default)),
  lazy('alerts', 'local alerts: list, acknowledge, settings', () => import('./commands/reports').then((m) => m.alerts)),
  lazy('assets', 'assets of the selected network', () => import('./commands/markets').then((m) => m.assets)),
  lazy('earn', 'earn pool: balances, withdrawals queue, create, claim, cancel', () => import('./commands/earn').then((m) => m.default)),
  lazy('export', 'CSV exports: fills (with fees), transfers and withdrawals, the journal; values in USD or --currency', () =>
    import('./commands/reports').then((m) => m.exports),
  ),
  lazy('halt', 'kill switch: cancel all open orders and refuse writes until resume', () => import('./commands/policy').then((m) => m.halt)),
  lazy('journal', 'the local record of every write: list, show, export, reconcile, ack', () =>
    import('./commands/journal').then((m) => m.default),
  ),
  lazy(
    'keys',
    'the key vault: create, list, import, export, generate, add the sandbox demo accounts, watch, remove, change passphrase',
    () => import('./commands/keys').then((m) => m.default),
  ),
  lazy('markets', 'markets of the selected network', () => import('./commands/markets').then((m) => m.default)),
  lazy('networks', 'list, select and edit networks', () => import('./commands/networks').then((m) => m.default)),
  lazy('orders', 'open orders, order ticket, cancels, emergency cancel-all, transfers, withdraw, activateFor', () =>
    import('./commands/orders').then((m) => m.default),
  ),
  lazy('pnl', 'realised profit and loss from fills', () => import('./commands/reports').then((m) => m.pnl)),
  lazy('policy', 'operator guardrails: show and change the rules main enforces', () => import('./commands/policy').then((m) => m.default)),
  lazy('repay', 'repay a credit account short from a balance-mode account', () => import('./commands/repay').then((m) => m.default)),
  lazy('resume', 'lift the halt (passphrase)', () => import('./commands/policy').then((m) => m.resume)),
  lazy('settle', 'settle a credit account long into a cash account', () => import('./commands/settle').then((m) => m.default)),
  lazy('status', 'portfolio and credit health of your accounts (`desk status` = `desk status show`)', () =>
    import('./commands/status').then((m) => m.default),
  ),
  lazy(
    'team',
    'team mode: shared team store, roster, policy, approvals (init, join, members, quorum, changes, policy, proposals, approve, reject, verify)',
    () => import('./commands/team').then((m) => m.default),
  ),
]

export async function discoverGroups(): Promise<LazyGroup[]> {
  return [...COMMAND_GROUPS]
}
