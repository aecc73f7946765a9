import type { DemoAccount } from '../../core/features/accounts'
import { DEMO_ACCOUNTS } from '../../../sandbox/demo-accounts'

/** The sandbox's public demo accounts, as the accounts feature offers them on the sandbox network. */
export const demoAccounts: readonly DemoAccount[] = DEMO_ACCOUNTS.map((a) => ({
  address: a.address,
  privateKey: a.privateKey,
  label: a.label,
}))
