/**
 * The sandbox as the hosts hand it to the core: an in-process starter for the sandbox network
 * and its public demo accounts. The only production module that imports `sandbox/`.
 */
import type { DeskCoreOptions } from '../../core/app/compose'
import { demoAccounts } from './demo-accounts'
import { inProcessSandbox } from './sandbox-starter'

export function sandboxPorts(dataDir: string, log?: (line: string) => void): Pick<DeskCoreOptions, 'startSandbox' | 'demoAccounts'> {
  return { startSandbox: inProcessSandbox(dataDir, log), demoAccounts }
}

export { demoAccounts, inProcessSandbox }
