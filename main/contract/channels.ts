/**
 * The typed IPC contract: every channel the renderer may invoke (name, argument schema,
 * result type) and every event main may push. Main validates every argument against these
 * schemas; the preload and the web adapter expose exactly these names and nothing else.
 * There is deliberately no channel that signs arbitrary bytes or returns key material.
 *
 * The index that assembles the contract: each feature defines its channels in
 * main/contract/<feature>.channels.ts (beside its <feature>.types.ts); `channels` spreads them
 * here. The spread order is the contract's key order (channelNames, and the seeded contract
 * fuzz walks it): a new channel goes into its feature's group, a new group into this list.
 */
import type * as v from 'valibot'
import { accountsChannels } from './accounts.channels'
import { agentsChannels } from './agents.channels'
import { appChannels, appHostChannels } from './app.channels'
import { cliChannels } from './cli.channels'
import { confirmChannels } from './confirm.channels'
import { earnChannels } from './earn.channels'
import { journalChannels } from './journal.channels'
import { networksChannels } from './networks.channels'
import { ordersChannels } from './orders.channels'
import { policyChannels } from './policy.channels'
import { portfolioChannels } from './portfolio.channels'
import { reportsChannels } from './reports.channels'
import { settingsChannels } from './settings.channels'
import { streamsChannels } from './streams.channels'
import { teamChannels } from './team.channels'
import { transfersChannels, withdrawPreviewChannels } from './transfers.channels'
import { vaultChannels } from './vault.channels'
import type {
  AccountDetailView,
  AgentSlotsView,
  ConfirmRequest,
  CreditHealthView,
  EarnOverviewView,
  NotificationEvent,
  OverviewView,
  StreamStatus,
  SubmissionView,
  TeamEvent,
  VaultStatus,
} from './types'

export type { Channel } from './common.channel'

export const channels = {
  ...appChannels,
  ...vaultChannels,
  ...accountsChannels,
  ...networksChannels,
  ...settingsChannels,
  ...portfolioChannels,
  ...agentsChannels,
  ...transfersChannels,
  ...ordersChannels,
  ...earnChannels,
  ...policyChannels,
  ...journalChannels,
  ...confirmChannels,
  ...appHostChannels,
  ...cliChannels,
  ...reportsChannels,
  ...withdrawPreviewChannels,
  ...streamsChannels,
  ...teamChannels,
} as const

export type Channels = typeof channels
export type ChannelName = keyof Channels
export type ChannelArgs<N extends ChannelName> = v.InferInput<Channels[N]['args']>
export type ChannelResult<N extends ChannelName> = NonNullable<Channels[N]['result']>

/** Events main pushes to the renderer (coalesced; a few per second per topic at most). */
export interface Events {
  'state.overview': OverviewView
  'state.account': AccountDetailView
  'state.credit': CreditHealthView
  'state.earn': EarnOverviewView
  'journal.changed': SubmissionView
  'vault.status': VaultStatus
  'stream.status': StreamStatus
  'confirm.request': ConfirmRequest
  /** A confirmation request ended (answered in any window, expired or cancelled): every window closes it. */
  'confirm.closed': { id: string; outcome: 'approved' | 'declined' | 'expired' }
  notify: NotificationEvent
  /** An account's agent slots changed (after an agent write, or a reconcile re-read them). */
  'state.agents': AgentSlotsView
  /** Team mode: the status, and whether proposals changed (driven by the store's LISTEN/NOTIFY push). */
  'state.team': TeamEvent
}
export type EventName = keyof Events
export const eventNames: readonly EventName[] = [
  'state.overview',
  'state.account',
  'state.credit',
  'state.earn',
  'journal.changed',
  'vault.status',
  'stream.status',
  'confirm.request',
  'confirm.closed',
  'notify',
  'state.agents',
  'state.team',
]

export const channelNames = Object.keys(channels) as ChannelName[]

export { INVOKE_CHANNEL, EVENT_CHANNEL } from './bridge'
