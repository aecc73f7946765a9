import { defineStore } from 'pinia'
import type { ScreenLeaseView, ScreenTarget } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

/** Screen leases (main's `screen.watch` / `screen.release`): what the screens on view watch live. */
export const useScreenStore = defineStore('screen', () => {
  function take(target: ScreenTarget, leaseId?: string): Promise<ScreenLeaseView> {
    return call('screen.watch', leaseId ? { target, leaseId } : { target })
  }
  async function release(leaseId: string): Promise<void> {
    await call('screen.release', { leaseId })
  }
  return { take, release }
})
