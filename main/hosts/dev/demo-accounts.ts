import type { DemoAccount } from '../../core/features/accounts'
import { DEV_OWNER_LABELS, DEV_OWNERS } from '../../../sandbox/scenario/dev-keys'

/** The sandbox's public development owners, as the accounts feature offers them on the sandbox network. */
export const demoAccounts: readonly DemoAccount[] = DEV_OWNERS.map((o) => ({ address: o.address, privateKey: o.privateKey as `0x${string}`, label: DEV_OWNER_LABELS[o.index] ?? `Sandbox owner ${o.index}` }))
