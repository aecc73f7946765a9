import { onDisconnect, onEvent } from '../bridge/desk'
import { useAccountDetailStore } from './account-detail'
import { useConfirmStore } from './confirm'
import { useEarnStore } from './earn'
import { useJournalStore } from './journal'
import { useNotificationsStore } from './notifications'
import { useOverviewStore } from './overview'
import { useSessionStore } from './session'

/** Routes every pushed event to the store that owns it. Returns the unsubscribe function. */
export function wireEvents(): () => void {
  const session = useSessionStore()
  const notes = useNotificationsStore()
  const offs = [
    onEvent('state.overview', (v) => useOverviewStore().apply(v)),
    onEvent('state.account', (v) => useAccountDetailStore().applyAccount(v)),
    onEvent('state.credit', (v) => useAccountDetailStore().applyCredit(v)),
    onEvent('state.earn', (v) => useEarnStore().apply(v)),
    onEvent('journal.changed', (v) => useJournalStore().apply(v)),
    // main raises the lock notification itself (with its reason: operator, idle, OS)
    onEvent('vault.status', (v) => session.setVault(v)),
    onEvent('stream.status', (v) => {
      const was = session.stream?.connected
      session.stream = v
      if (was === true && !v.connected) notes.local('stream', 'warning', 'Live stream disconnected', `${v.detail} Values age until it reconnects.`)
      if (was === false && v.connected) notes.local('stream', 'success', 'Live stream reconnected', v.detail)
    }),
    onEvent('confirm.request', (v) => useConfirmStore().request(v)),
    onEvent('confirm.closed', (v) => useConfirmStore().close(v.id)),
    onEvent('notify', (v) => notes.push(v)),
    onDisconnect(() => {
      if (!session.hostDisconnected) notes.local('stream', 'error', 'Desk host disconnected', 'Restart the desk; journaled writes are reconciled on start.')
      session.hostDisconnected = true
    }),
  ]
  return () => offs.forEach((off) => off())
}
