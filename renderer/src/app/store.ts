import { call, onDisconnect, onEvent } from '../platform/bridge/desk'
import { adviceFor } from '../shared/utils/advice'
import { useAgentsStore } from '../features/agents'
import { useAccountDetailStore } from '../features/account-detail'
import { useConfirmStore } from '../features/confirm'
import { useCreditStore } from '../features/credit'
import { useEarnStore } from '../features/earn'
import { useJournalStore } from '../features/journal'
import { useNotificationsStore } from '../features/notifications'
import { useOverviewStore } from '../features/overview'
import { usePolicyStore } from '../features/policy'
import { useSessionStore } from '../features/session'
import { useTeamStore } from '../features/team'

/** Routes every pushed event to the store that owns it. Returns the unsubscribe function. */
export function wireEvents(): () => void {
  const session = useSessionStore()
  const notes = useNotificationsStore()
  let dropped = false
  const offs = [
    onEvent('state.overview', (v) => useOverviewStore().apply(v)),
    onEvent('state.account', (v) => useAccountDetailStore().applyAccount(v)),
    onEvent('state.credit', (v) => useCreditStore().apply(v)),
    onEvent('state.earn', (v) => useEarnStore().apply(v)),
    onEvent('state.agents', (v) => useAgentsStore().apply(v)),
    // Team mode: the link, the bar's approvals count, and a nudge to re-read open proposal lists.
    onEvent('state.team', (v) => {
      useTeamStore().apply(v)
      // A guardrail change approved by the team is applied by this desk with no click here: a
      // loaded policy view (Policy screen, halt state) is re-read so it shows what applies now.
      const policy = usePolicyStore()
      if (v.proposalsChanged && policy.view) void policy.load()
    }),
    onEvent('journal.changed', (v) => useJournalStore().apply(v)),
    // main raises the lock notification itself (with its reason: operator, idle, OS)
    onEvent('vault.status', (v) => session.setVault(v)),
    onEvent('stream.status', (v) => {
      const was = session.stream?.connected
      session.stream = v
      if (was === true && !v.connected) {
        dropped = true
        notes.local('stream', 'warning', 'Live stream disconnected', `${v.detail} Values age until it reconnects.`)
      }
      // "Reconnected" answers a "disconnected": the first connection at start is not news.
      if (dropped && v.connected) {
        dropped = false
        notes.local('stream', 'success', 'Live stream reconnected', v.detail)
      }
    }),
    // A confirmation a `desk` command asked for is answered at that terminal, not in this window.
    onEvent('confirm.request', (v) => v.origin === 'app' && useConfirmStore().request(v)),
    onEvent('confirm.closed', (v) => useConfirmStore().close(v.id)),
    onEvent('notify', (v) => notes.push(v)),
    onDisconnect(() => {
      if (!session.hostDisconnected) notes.local('stream', 'error', 'Desk host disconnected', adviceFor('HostDisconnected'))
      session.hostDisconnected = true
    }),
  ]
  // A window that just opened shows the stream panel at once, not at the next push.
  void call('stream.status', {})
    .then((v) => {
      session.stream ??= v
    })
    .catch(() => {})
  // The approvals count shows from the start, not at the first team push.
  void useTeamStore().loadStatus()
  return () => offs.forEach((off) => off())
}
