import { mkdirSync } from 'node:fs'
import type { SandboxStarter } from '../config/networks'
import { SettingsStore } from '../config/settings'
import { HostSchedulers } from '../exchange/scheduler'
import { ConfirmBroker } from '../ipc/confirm-broker'
import { createDispatcher, mergeHandlers, type CallContext, type Dispatch } from '../ipc/dispatch'
import { EventHub } from '../ipc/events'
import { notifier } from '../ipc/notify'
import { openJournal } from '../journal'
import { PolicyBook, policyEngine } from '../policy'
import { ExternalLinkPolicy } from '../security/external-links'
import { SessionHolder } from '../session'
import { WritePipeline, type WriteGate } from '../writes'
import {
  AccountDirectory,
  AccountMetaStore,
  accountsHandlers,
  confirmationContext,
  keyImportHandlers,
  type DemoAccount,
} from '../features/accounts'
import { AgentsLive, agentsHandlers } from '../features/agents'
import { CreditLive, creditHandlers } from '../features/credit'
import { EarnLive, earnHandlers } from '../features/earn'
import { hostHandlers, type HostServices } from '../features/host'
import {
  journalHandlers,
  journalReconcileHandlers,
  journalRecordsHandlers,
  pendingCounter,
  watchJournal,
  writeOutcomeView,
} from '../features/journal'
import { ordersHandlers } from '../features/orders'
import { LiveOverview, portfolioHandlers, portfolioStatusHandlers } from '../features/portfolio'
import { applyApprovedSettings, policyHandlers, settingsInEffect } from '../features/policy'
import { settingsHandlers } from '../features/settings'
import { settleRepayHandlers } from '../features/settle-repay'
import { transfersHandlers } from '../features/transfers'
import { VaultHolder, vaultHandlers, vaultKeysHandlers } from '../features/vault'
import { reportsHandlers } from '../features/reports'
import { AlertService, alertsHandlers } from '../features/alerts'
import { TeamService, sessionTakeoverSender, teamHandlers } from '../features/team'
import { ScreenLeases, screenHandlers } from '../features/screen'

export interface DeskCoreOptions {
  dataDir: string
  host: 'electron' | 'web' | 'cli'
  version: string
  services: HostServices
  /** Starts the sandbox network in-process; hosts hand it in (the core never imports the sandbox). */
  startSandbox?: SandboxStarter
  /** Public development accounts offered on the sandbox (the sandbox owns them; hosts hand them in). */
  demoAccounts?: readonly DemoAccount[]
  /** Background overview refresh (ms); 0 disables it. Default 5 s. */
  overviewRefreshMs?: number
  /** Open stream pools (long-running hosts). Default true. */
  stream?: boolean
  /** Evaluate the operator's alert rules in the background (streaming hosts). Default true. */
  alerts?: boolean
  /** scrypt cost for vaults created by this core (tests use a cheap one). */
  scryptN?: number
  now?: () => number
  /** Team mode timings (tests): proposal expiry, the execution lease and the takeover timer. */
  team?: { proposalTtlMs?: number; leaseMs?: number; recoverEveryMs?: number; releaseWaitMs?: number }
}

/** The core every host drives: one dispatcher for the contract, pushed events, orderly close. */
export interface DeskCore {
  readonly events: EventHub
  readonly vault: VaultHolder
  readonly settings: SettingsStore
  dispatch(channel: unknown, args: unknown, ctx: CallContext): ReturnType<Dispatch>
  /** The write pipeline's decision step (core/writes): ALLOW_ALL until team mode sets its own. */
  setWriteGate(gate: WriteGate): void
  /** Operator activity: resets the vault's idle auto-lock timer. */
  touch(): void
  /** A host's window or connection (`CallContext.sender`) went away: what it held (screen leases) ends. */
  senderGone(sender: string): void
  lockVault(reason: 'os' | 'idle' | 'operator'): void
  /** Stops streams and timers, drains pending journal writes, closes the database. */
  close(): Promise<void>
}

/** The composition root: constructors in dependency order, then start. No rule lives here. */
export async function createDeskCore(o: DeskCoreOptions): Promise<DeskCore> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 })
  const now = o.now ?? Date.now
  const events = new EventHub()
  const notify = notifier(events, now)
  const settings = new SettingsStore(o.dataDir)
  settings.load()
  const journal = openJournal(o.dataDir)
  const confirm = new ConfirmBroker(events)
  const links = await ExternalLinkPolicy.load(o.dataDir).catch((e: unknown) => {
    // A damaged list of approved sites: open only the shipped hosts until the operator re-approves.
    console.warn('external links:', (e as Error).message)
    return new ExternalLinkPolicy(o.dataDir)
  })
  const vault = new VaultHolder({
    dataDir: o.dataDir,
    settings,
    confirm,
    events,
    notify,
    now,
    ...(o.scryptN ? { scryptN: o.scryptN } : {}),
  })
  const accounts = new AccountDirectory(vault, new AccountMetaStore(o.dataDir))
  const agentKeys = { listAccounts: () => vault.current?.listAccounts() ?? [] }
  // Closed with the core: requests still queued for a closed core must never go out.
  const schedulers = new HostSchedulers(now)
  const sessions = new SessionHolder(settings, {
    journal,
    vault: () => vault.current,
    schedulers,
    stream: o.stream ?? true,
    now,
    ...(o.startSandbox ? { startSandbox: o.startSandbox } : {}),
  })
  const pendingJournal = pendingCounter(journal)
  // Each feature follows its own live state and writes; portfolio keeps account pages and the overview.
  const [earnLive, agentsLive, creditLive] = [
    new EarnLive({ sessions, events, now }),
    new AgentsLive({ sessions, keys: agentKeys, events, now }),
    new CreditLive({ sessions, settings, events, now }),
  ]
  const live = new LiveOverview({
    sessions,
    accounts,
    agentKeys,
    settings,
    events,
    notify,
    now,
    pendingJournal,
    hasVault: () => vault.current !== null,
    agents: agentsLive,
    credit: creditLive,
  })
  confirm.setContext(confirmationContext(settings, accounts))
  // What screens watch, by lease: account and credit pages pushed and streamed first, overview rows next.
  const screen = new ScreenLeases({ now })
  live.accounts.followScreen(screen)
  creditLive.followScreen(screen)

  const policy = new PolicyBook({
    dataDir: o.dataDir,
    journal,
    now,
    verifyPassphrase: (p) => vault.require().verifyPassphrase(p),
    ownAccounts: () => (vault.current?.listAccounts() ?? []).filter((a) => !a.watchOnly).map((a) => a.address),
  })
  // Every exchange write of every host walks this one pipeline; its decision step is ALLOW_ALL until setWriteGate.
  const pipeline = new WritePipeline({ sessions, vault, journal, policy, outcomeView: writeOutcomeView })
  const writes = { sessions, vault, journal, policy, pipeline }
  const operatorAccounts = () => accounts.refs().map((a) => ({ address: a.address, label: a.label }))
  const alerts = new AlertService({
    journal,
    events,
    sessions,
    settings,
    accounts: operatorAccounts,
    vaultUnlocked: () => vault.current?.isUnlocked ?? false,
    now,
    log: (line) => console.warn(line),
  })
  // Team mode: with a team configured, its gate (or a refusing one while the store is not open) replaces ALLOW_ALL.
  // A desk on the proposal's network finishes what a crashed desk signed: the stored bytes, re-sent (features/team/takeover.ts).
  const team = new TeamService({
    dataDir: o.dataDir,
    vault,
    events,
    notify,
    alerts,
    sessions,
    setGate: (g) => pipeline.setGate(g),
    now,
    // Only long-running hosts finish other desks' work (a short `desk` command must not start a takeover and exit mid-send).
    ...((o.stream ?? true) ? { takeover: sessionTakeoverSender({ sessions }) } : { recoverEveryMs: 0 }),
    ...o.team,
  })
  const handlers = mergeHandlers([
    settingsHandlers({ settings, sessions, vault, accounts, policy, host: o.host, version: o.version }),
    vaultHandlers({ vault, sessions }),
    vaultKeysHandlers({ dataDir: o.dataDir, vault }),
    accountsHandlers({ vault, accounts, settings, demoAccounts: o.demoAccounts ?? [] }),
    keyImportHandlers({ vault }),
    portfolioHandlers({ sessions, accounts, live, events, now, settings, pendingJournal }),
    portfolioStatusHandlers({ sessions, settings, pendingJournal, keys: agentKeys }),
    creditHandlers({ sessions, settings, live: creditLive }),
    agentsHandlers({ ...writes, keys: agentKeys, events, now, live: agentsLive }),
    settleRepayHandlers(writes),
    transfersHandlers({ ...writes, label: (a) => accounts.label(a) }),
    ordersHandlers(writes),
    earnHandlers({ ...writes, events, now, live: earnLive }),
    journalHandlers({ journal, settings, now, vault }),
    journalReconcileHandlers({ journal, sessions }),
    journalRecordsHandlers({ journal }),
    hostHandlers({ confirm, services: o.services, links }),
    reportsHandlers({ sessions, accounts: operatorAccounts }),
    alertsHandlers({ alerts }),
    teamHandlers({ team }),
    screenHandlers({ leases: screen }),
    policyHandlers({
      ...writes,
      keys: agentKeys,
      settings: team,
      accounts: () => (vault.current?.listAccounts() ?? []).map((a) => ({ address: a.address, label: a.label, watchOnly: a.watchOnly })),
    }),
  ])
  // Only the channel name and error code are logged, never arguments (they may hold a passphrase).
  const dispatchOnly = createDispatcher(handlers, { warn: (message, fields) => console.warn(message, JSON.stringify(fields)) })
  // A write's channel and arguments are known to team mode's decision step (a proposal stores them to replay the same write).
  const dispatch: Dispatch = (channel, args, ctx) => team.withCall(channel, args, () => dispatchOnly(channel, args, ctx))
  team.setDispatch(dispatch)
  // An approved address-book, limit or resume change is applied by the desk that proposed it (features/policy/team-settings.ts).
  team.setSettingsApplier({
    apply: async (change, network) => applyApprovedSettings((await policyEngine(writes)).engine, change, network),
    inEffect: async (change) => settingsInEffect((await policyEngine(writes)).engine, change),
  })

  await vault.open()
  const stopJournalWatch = watchJournal(journal, events, notify)
  vault.onAccountsChanged(() => live.accountsChanged())
  live.start(o.overviewRefreshMs ?? 5000)
  // Alerts evaluate in long-running hosts only (a short `desk` command lists them, it does not evaluate).
  if ((o.stream ?? true) && (o.alerts ?? true)) alerts.start()
  // Connect to the selected network while the operator unlocks; errors surface when a screen asks.
  void sessions.current().catch(() => {})

  let closing: Promise<void> | null = null
  return {
    events,
    vault,
    settings,
    dispatch,
    setWriteGate: (gate) => pipeline.setGate(gate),
    touch: () => vault.touch(),
    senderGone: (sender) => screen.senderGone(sender),
    lockVault: (reason) => vault.lock(reason),
    close: () =>
      (closing ??= (async () => {
        screen.close()
        live.close()
        for (const l of [earnLive, agentsLive, creditLive]) l.close()
        // Queued requests are refused first: the passes awaited below (alerts, reconciler, the
        // pool's sweep) would otherwise wait for their turn on the budget (minutes at 200 accounts).
        schedulers.closeAll()
        await alerts.close()
        stopJournalWatch()
        confirm.cancelAll()
        await sessions.close()
        vault.lock('operator')
        await journal.close()
      })()),
  }
}
