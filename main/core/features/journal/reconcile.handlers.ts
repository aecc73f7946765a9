/**
 * Reconcile passes over the selected network's unresolved journal entries (cli-only: `desk
 * journal reconcile`; the app's reconciler runs on its own). The desk's call context has
 * checked that the network it named is the selected one.
 */
import type { HandlerTable } from '../../ipc/dispatch'
import type { Journal } from '../../journal'
import type { SessionSource } from '../../session'

export type JournalReconcileChannels = 'journal.reconcile'

export function journalReconcileHandlers(d: { journal: Journal; sessions: SessionSource }): Pick<HandlerTable, JournalReconcileChannels> {
  return {
    'journal.reconcile': async ({ passes }) => {
      const s = await d.sessions.current()
      const name = s.network.name
      let left = d.journal.unresolved(name).length
      for (let i = 0; i < passes && left > 0; i++) {
        await s.write().reconcileAll()
        left = d.journal.unresolved(name).length
        // Passes 1 s apart: the service needs a moment to show what a write did.
        if (left > 0 && i + 1 < passes) await new Promise((r) => setTimeout(r, 1000))
      }
      return { unresolved: d.journal.unresolved(name).map((e) => ({ id: e.id, actionType: e.actionType, state: e.state, key: e.key })) }
    },
  }
}
