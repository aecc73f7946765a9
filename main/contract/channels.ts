/**
 * The typed IPC contract: every channel the renderer may invoke (name, argument schema,
 * result type) and every event main may push. Main validates every argument against these
 * schemas; the preload and the web adapter expose exactly these names and nothing else.
 * There is deliberately no channel that signs arbitrary bytes or returns key material.
 */
import * as v from 'valibot'
import type {
  CliInstallView,
  AccountDetailView,
  Address,
  AccountView,
  AgentSlotView,
  AgentSlotsView,
  AppState,
  AssetView,
  JournalRecordDetail,
  JournalRecordView,
  NetworkListing,
  StatusOverviewView,
  VaultInitView,
  VaultKeysView,
  ConfirmRequest,
  CreditHealthView,
  CreditSample,
  EarnDepositView,
  EarnOverviewView,
  EarnPage,
  EarnWithdrawalView,
  EarnYieldView,
  AddressBookEntryView,
  HaltResult,
  PolicyView,
  MarketView,
  NetworkView,
  NotificationEvent,
  OverviewView,
  PreviewView,
  RotationStep,
  ScreenLeaseView,
  SettingsView,
  StreamStatus,
  SubmissionView,
  VaultStatus,
  WriteOutcome,
  TeamEvent,
  TeamChangeView,
  TeamMembersView,
  TeamPolicyView,
  TeamProposalDetail,
  TeamProposalView,
  TeamStatusView,
  TeamVerifyView,
  TeamCustodySplitView,
  TeamCustodyView,
} from './types'
import { JOURNAL_RECORD_STATES, TEAM_ACTION_KINDS, TEAM_ROLES, TEAM_RULE_DIRECTIONS } from './types'

// ---- argument building blocks ------------------------------------------------------------

const address = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address'))
/** Display decimal typed by the operator; exact precision is checked in main against the asset. */
const decimal = v.pipe(v.string(), v.maxLength(80), v.regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, 'must be a plain decimal number'))
const idString = v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]{0,19})$/, 'must be a decimal integer'))
const assetId = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 32 - 1))
const slot = v.picklist([0, 1, 2, 3] as const)
const label = v.pipe(v.string(), v.maxLength(64))
const passphrase = v.pipe(v.string(), v.minLength(1), v.maxLength(1024))
const cloid = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{32}$/, 'must be 0x + 16 bytes hex'))
const operationId = v.pipe(
  v.string(),
  v.maxLength(200),
  v.regex(/^withdraw:0x[0-9a-fA-F]{40}:[0-9]+$/, 'must be withdraw:<address>:<nonce>'),
)
const none = v.optional(v.undefined())
const timeMs = v.pipe(v.number(), v.integer(), v.minValue(0))
const networkName = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(40),
  v.regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
)
const url = v.pipe(v.string(), v.maxLength(400), v.regex(/^(https?|wss?):\/\/[^\s]+$/, 'must be an http(s) or ws(s) URL'))
const rate = v.pipe(v.number(), v.minValue(0.1), v.maxValue(1000))
/** What a screen watches: one account page, one credit page, or the overview's visible rows (at most 200). */
const screenTarget = v.variant('kind', [
  v.object({ kind: v.literal('account'), address }),
  v.object({ kind: v.literal('credit'), address }),
  v.object({ kind: v.literal('overview'), addresses: v.pipe(v.array(address), v.maxLength(200)) }),
])
const leaseId = v.pipe(v.string(), v.regex(/^lease-[0-9]{1,15}$/, 'must be a lease id from screen.watch'))
const pct = v.pipe(v.number(), v.minValue(0), v.maxValue(100))
/** An export's value currency: 'USD' or an asset symbol; main checks it is listed and has a live mark. */
/** A credit-line threshold in percent: 0 to 100, at most 2 decimals (75.25). */
const ltvPct = v.pipe(
  v.number(),
  v.minValue(0),
  v.maxValue(100),
  v.check((x) => /^[0-9]{1,3}(\.[0-9]{1,2})?$/.test(String(x)), 'a percent from 0 to 100 with at most 2 decimals'),
)
const reportCurrency = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(16),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'USD or an asset symbol'),
)

const journalFilter = v.object({
  account: v.optional(address),
  actionType: v.optional(v.pipe(v.string(), v.maxLength(40))),
  state: v.optional(v.picklist(['prepared', 'sent', 'accepted', 'rejected', 'unknown', 'reconciled', 'failed', 'unresolved'] as const)),
  unresolvedOnly: v.optional(v.boolean()),
  sinceMs: v.optional(timeMs),
  untilMs: v.optional(timeMs),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000))),
  /** Free text searched in main over every entry (cloid, tx hash, trace id, oid, summary). */
  q: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(120))),
})

/** `cloid`: the desk's `--cloid` (a client order id the operator chose; generated when absent). */
const settleArgs = v.object({ creditAccount: address, cashAccount: address, assetId, amount: decimal, cloid: v.optional(cloid) })
const repayArgs = v.object({ cashAccount: address, creditAccount: address, assetId, amount: decimal, cloid: v.optional(cloid) })
const transferArgs = v.object({ from: address, to: address, assetId, amount: decimal, cloid: v.optional(cloid) })
const withdrawArgs = v.object({
  account: address,
  assetId,
  amount: decimal,
  dstChainId: idString,
  dstAddress: address,
  cloid: v.optional(cloid),
})
const activateArgs = v.object({ account: address, target: address, feeAssetId: assetId, cloid: v.optional(cloid) })
const orderArgs = v.object({
  account: address,
  marketId: idString,
  side: v.picklist(['bid', 'ask'] as const),
  orderType: v.picklist(['limit', 'market'] as const),
  tif: v.picklist(['gtc', 'ioc', 'fok', 'alo'] as const),
  price: decimal,
  quantity: decimal,
  /** Knowing override of the price band for this one order: `confirmText` must equal the phrase the refusal gave. */
  override: v.optional(v.object({ priceBand: v.literal(true), confirmText: v.pipe(v.string(), v.maxLength(200)) })),
  cloid: v.optional(cloid),
})
const earnCreateArgs = v.object({ account: address, assetId, amount: decimal, type: v.picklist(['scheduled', 'instant'] as const) })
/**
 * `cloid` on a create: the operation id it must get (`withdraw:<user>:<user_nonce>`), as an approved
 * team proposal replays it; refused typed when the pool's next user nonce has moved since.
 */
const earnCreateWriteArgs = v.object({
  ...earnCreateArgs.entries,
  cloid: v.optional(v.pipe(v.string(), v.regex(/^withdraw:0x[0-9a-fA-F]{40}:[0-9]{1,15}$/, 'must be withdraw:<address>:<nonce>'))),
})
const earnOpArgs = v.object({ account: address, operationId })
const earnPageArgs = v.object({
  account: address,
  assetId: v.optional(assetId),
  beforeId: v.optional(v.pipe(v.string(), v.maxLength(40))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200))),
})

// ---- team mode (issue 23) ----------------------------------------------------------------------
const proposalId = v.pipe(v.string(), v.regex(/^0x[0-9a-f]{64}$/, 'a proposal id: 0x + 32 bytes hex (lower case)'))
const teamRoles = v.pipe(v.array(v.picklist(TEAM_ROLES)), v.minLength(1), v.maxLength(4))
const usdAmount = v.pipe(v.string(), v.maxLength(40), v.regex(/^(0|[1-9][0-9]*)(\.[0-9]{1,8})?$/, 'a USD amount, at most 8 decimals'))
const teamGroupName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, 'a group name: letters, digits, space, dot, dash, underscore; at most 64'),
)
/** Account groups a team policy's rules name: group name -> accounts (signed with the policy). */
const teamGroups = v.pipe(
  v.record(teamGroupName, v.pipe(v.array(address), v.minLength(1), v.maxLength(200))),
  v.check((g) => Object.keys(g).length <= 50, 'at most 50 account groups'),
)
/** The team's names for addresses (accounts and destinations), signed with the policy: the same on every desk. */
const teamNames = v.pipe(
  v.record(address, v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
  v.check((n) => Object.keys(n).length <= 500, 'at most 500 named addresses'),
)
const teamRule = v.object({
  id: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(64),
    v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash, underscore'),
  ),
  kinds: v.optional(v.pipe(v.array(v.picklist(TEAM_ACTION_KINDS)), v.minLength(1), v.maxLength(TEAM_ACTION_KINDS.length))),
  accounts: v.optional(v.pipe(v.array(address), v.minLength(1), v.maxLength(200))),
  /** names of the policy's account groups (`team.policy.set` groups) */
  groups: v.optional(v.pipe(v.array(teamGroupName), v.minLength(1), v.maxLength(50))),
  minUsd: v.optional(usdAmount),
  minWindowUsd: v.optional(usdAmount),
  destinations: v.optional(v.pipe(v.array(address), v.minLength(1), v.maxLength(200))),
  direction: v.optional(v.picklist(TEAM_RULE_DIRECTIONS)),
  then: v.variant('effect', [
    v.object({ effect: v.literal('allow') }),
    v.object({ effect: v.literal('block') }),
    v.object({ effect: v.literal('approve'), count: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20)), roles: teamRoles }),
  ]),
})
const teamConnectionString = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(1000),
  v.regex(/^postgres(ql)?:\/\/[^\s]+$/, 'a postgresql:// connection string'),
)
const memberName = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))

/** A channel: its argument schema and (phantom) result type. */
export interface Channel<A extends v.GenericSchema, R> {
  args: A
  /** Type-only marker; never read at run time. */
  result?: R
  /** Queries read; intents change something (those that move funds or keys pass the confirmation gate in main). */
  kind: 'query' | 'intent'
  /**
   * Only the `desk` command line may call it (raw key import, keystore export, secrets read from
   * files by main): the dispatcher refuses it unless the caller's host is 'cli', which the
   * Electron and web hosts never set.
   */
  cliOnly?: true
}

// Curried so the result type is given and the argument type inferred from the schema.
const query =
  <R>() =>
  <A extends v.GenericSchema>(args: A): Channel<A, R> => ({ args, kind: 'query' })
const intent =
  <R>() =>
  <A extends v.GenericSchema>(args: A): Channel<A, R> => ({ args, kind: 'intent' })

const ownerSlot = v.object({ owner: address, slot })
/** `cloid` on an agent approval or revocation: the key an approved team proposal knows it by (replayed); generated when absent. */
const ownerSlotWrite = v.object({ owner: address, slot, cloid: v.optional(cloid) })

// ---- the desk command line's channels (cli-only) ----------------------------------------------
// Arguments are the operator's words as typed (main parses them with the same typed errors the
// app's services raise); results are what `desk … --json` prints.

const cliOnly =
  <R>() =>
  <A extends v.GenericSchema>(kind: 'query' | 'intent', args: A): Channel<A, R> => ({ args, kind, cliOnly: true })
const text = (max = 200) => v.pipe(v.string(), v.maxLength(max))
const filePath = v.pipe(v.string(), v.minLength(1), v.maxLength(4096))
/** A secret main reads from a file the CLI names, or the value typed at the CLI's hidden prompt. */
const secret = v.union([v.object({ file: filePath }), v.object({ value: passphrase })])
const optText = (max = 200) => v.optional(text(max))
/** The journal's records over every network (the desk's journal commands): several types and states, the journal's own state names. */
const recordFilter = v.object({
  network: v.optional(text(40)),
  account: v.optional(text()),
  actionType: v.optional(v.pipe(v.array(text(40)), v.maxLength(50))),
  state: v.optional(v.pipe(v.array(v.picklist(JOURNAL_RECORD_STATES)), v.maxLength(8))),
  since: v.optional(timeMs),
  until: v.optional(timeMs),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(999_999))),
})
const label64 = v.optional(label)

const cliChannels = {
  /** Reconcile passes (1 s apart) over the selected network's unresolved entries; lists what is still unresolved (journal feature). */
  'journal.reconcile': cliOnly<{ unresolved: { id: number; actionType: string; state: string; key: string }[] }>()(
    'intent',
    v.object({ passes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)) }),
  ),
  /** Creates the vault (locked) with the scrypt cost the desk chose (vault feature); the passphrase is read by main. */
  'vault.init': cliOnly<VaultInitView>()(
    'intent',
    v.object({ passphrase: secret, scryptN: v.optional(v.pipe(v.number(), v.integer(), v.minValue(2 ** 14), v.maxValue(2 ** 22))) }),
  ),
  /** Raw private key import into the unlocked vault (accounts feature): the key is read by main from the named file (or the hidden prompt), never an argument. */
  'accounts.importKey': cliOnly<{ address: Address }>()('intent', v.object({ key: secret, label: label64 })),
  /** Keystore import into the unlocked vault (accounts feature), its passphrase read by main from the named file (or the hidden prompt). */
  'accounts.importKeystoreFile': cliOnly<{ address: Address }>()(
    'intent',
    v.object({ file: filePath, keystorePassphrase: secret, label: label64 }),
  ),
  /** Keystore export (vault feature): main writes the v3 file (0600) itself; no key material crosses the channel. */
  'vault.exportKeystore': cliOnly<{ address: string; file: string }>()(
    'intent',
    v.object({
      address,
      file: filePath,
      force: v.boolean(),
      vaultPassphrase: secret,
      keystorePassphrase: secret,
      kdf: v.union([
        v.object({ kdf: v.literal('scrypt'), n: v.pipe(v.number(), v.integer(), v.minValue(2 ** 14), v.maxValue(2 ** 22)) }),
        v.object({ kdf: v.literal('pbkdf2') }),
      ]),
    }),
  ),
} as const

export const channels = {
  'app.state': query<AppState>()(none),

  'vault.create': intent<VaultStatus>()(v.object({ passphrase })),
  'vault.unlock': intent<VaultStatus>()(v.object({ passphrase })),
  'vault.lock': intent<VaultStatus>()(none),
  'vault.changePassphrase': intent<VaultStatus>()(v.object({ current: passphrase, next: passphrase })),
  /** The vault's file, accounts, agent key addresses and retired agents (addresses only, no passphrase needed). */
  'vault.keys': query<VaultKeysView>()(none),

  'accounts.list': query<AccountView[]>()(none),
  'accounts.generate': intent<AccountView>()(v.object({ label })),
  'accounts.watch': intent<AccountView>()(v.object({ address, label })),
  /** Imports a keystore file by path (chosen through the host's file dialog); the file never crosses IPC. */
  'accounts.importKeystore': intent<AccountView>()(
    v.object({ path: v.pipe(v.string(), v.minLength(1), v.maxLength(4096)), passphrase, label }),
  ),
  /**
   * Sandbox only: adds the sandbox scenario's public development owner keys (never real
   * funds) to the vault, so a new user sees every screen working. Main refuses it with
   * `NotSandbox` unless the selected network's kind is 'sandbox'.
   */
  'accounts.importSandboxKeys': intent<AccountView[]>()(none),
  'accounts.update': intent<AccountView>()(v.object({ address, label: v.optional(label), group: v.optional(label) })),
  'accounts.remove': intent<{ removed: Address }>()(v.object({ address })),

  'networks.list': query<{ selected: string; networks: NetworkListing[] }>()(none),
  'networks.select': intent<NetworkView>()(v.object({ name: networkName })),
  'networks.save': intent<NetworkView>()(
    v.object({
      name: networkName,
      kind: v.picklist(['testnet', 'mainnet', 'custom'] as const),
      chainId: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2 ** 32 - 1)),
      tradingUrl: url,
      wsUrl: url,
      earnUrl: url,
      infoRatePerSec: rate,
      tradeRatePerSec: rate,
      /** The vault passphrase: adding or changing a network is a policy change once a vault exists. */
      passphrase: v.optional(passphrase),
    }),
  ),

  /**
   * Adds a network or changes some of its fields (the others kept; '' clears a URL); the full
   * entry is validated as `networks.save` validates it. Needs the passphrase once a vault exists.
   */
  'networks.update': intent<NetworkListing>()(
    v.object({
      // Checked in main with the typed InvalidNetwork (as the saved entry is).
      name: text(40),
      kind: optText(20),
      network: optText(40),
      chainId: v.optional(v.number()),
      tradingUrl: optText(400),
      wsUrl: optText(400),
      earnUrl: optText(400),
      infoRatePerSec: v.optional(v.number()),
      tradeRatePerSec: v.optional(v.number()),
      /** Strict limits; only the sandbox may turn them off (main refuses it elsewhere with InvalidNetwork). */
      strictLimits: v.optional(v.boolean()),
      passphrase: v.optional(passphrase),
    }),
  ),
  /** Removes a network (its exchange's policy is kept). Needs the passphrase once a vault exists; journaled. */
  'networks.remove': intent<{ removed: string }>()(v.object({ name: text(40), passphrase: v.optional(passphrase) })),

  'settings.get': query<SettingsView>()(none),
  'settings.update': intent<SettingsView>()(
    v.object({
      autoLockMinutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24 * 60))),
      passphraseWindowMinutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(24 * 60))),
      warningThresholds: v.optional(v.object({ watchPct: pct, warningPct: pct, criticalPct: pct })),
      theme: v.optional(v.picklist(['dark', 'light'] as const)),
    }),
  ),

  'markets.list': query<{ markets: MarketView[]; assets: AssetView[] }>()(none),
  'portfolio.overview': query<OverviewView>()(none),
  'account.detail': query<AccountDetailView>()(v.object({ address })),
  'credit.health': query<CreditHealthView>()(v.object({ address })),
  'credit.history': query<CreditSample[]>()(v.object({ address, sinceMs: timeMs })),
  /**
   * A screen takes (or, with its `leaseId`, renews or retargets) a lease on what it watches: main
   * pushes it and streams it first while the lease holds. Leases are the calling window's or
   * socket's: they end with it, on `screen.release`, or when not renewed within `ttlMs`.
   */
  'screen.watch': query<ScreenLeaseView>()(v.object({ target: screenTarget, leaseId: v.optional(leaseId) })),
  /** Gives a lease back; `released` is false when it had already lapsed (or is another window's). */
  'screen.release': query<{ released: boolean }>()(v.object({ leaseId })),
  /** The overview of the named accounts (default: every vault account) read now from the service, not the live model's. */
  'portfolio.status': query<StatusOverviewView>()(v.object({ addresses: v.optional(v.pipe(v.array(address), v.maxLength(200))) })),

  'agents.list': query<AgentSlotView[]>()(v.object({ owner: address })),
  'agents.approve': intent<AgentSlotView>()(ownerSlotWrite),
  'agents.revoke': intent<AgentSlotView>()(ownerSlotWrite),
  'agents.rotate': intent<{ slot: AgentSlotView; steps: RotationStep[] }>()(ownerSlot),

  'settle.preview': query<PreviewView>()(settleArgs),
  'settle.submit': intent<WriteOutcome>()(settleArgs),
  'repay.preview': query<PreviewView>()(repayArgs),
  'repay.submit': intent<WriteOutcome>()(repayArgs),
  'transfer.preview': query<PreviewView>()(transferArgs),
  'transfer.submit': intent<WriteOutcome>()(transferArgs),
  'withdraw.submit': intent<WriteOutcome>()(withdrawArgs),
  'activate.submit': intent<WriteOutcome>()(activateArgs),

  'orders.place': intent<WriteOutcome>()(orderArgs),
  /** The ticket checked with the market's precision and minimums and the credit gate: the exact action; signs nothing. */
  'orders.check': query<import('./types').OrderCheckView>()(v.omit(orderArgs, ['override'])),
  'orders.cancel': intent<WriteOutcome>()(v.object({ account: address, marketId: idString, oid: idString })),
  'orders.cancelAll': intent<WriteOutcome>()(v.object({ account: address, marketId: idString })),
  'orders.cancelEverything': intent<WriteOutcome[]>()(v.object({ account: address })),
  /** The ticket's live facts: best bid/offer, tick, minimums, order value, signer, data age (StaleData past the limit). */
  'orders.preview': query<import('./types').OrderPreviewView>()(
    v.object({
      account: address,
      marketId: idString,
      side: v.picklist(['bid', 'ask'] as const),
      price: v.optional(v.pipe(v.string(), v.maxLength(80))),
      quantity: v.optional(v.pipe(v.string(), v.maxLength(80))),
    }),
  ),

  'earn.overview': query<EarnOverviewView>()(v.object({ account: address })),
  'earn.withdrawals': query<EarnPage<EarnWithdrawalView>>()(earnPageArgs),
  'earn.deposits': query<EarnPage<EarnDepositView>>()(earnPageArgs),
  'earn.yield': query<EarnPage<EarnYieldView>>()(earnPageArgs),
  'earn.create': intent<EarnWithdrawalView>()(earnCreateWriteArgs),
  /** A withdrawal request checked against the pool: the fee and what the operator receives; signs nothing. */
  'earn.preview': query<import('./types').EarnCreatePreviewView>()(earnCreateArgs),
  'earn.claim': intent<EarnWithdrawalView>()(earnOpArgs),
  'earn.cancel': intent<EarnWithdrawalView>()(earnOpArgs),

  // Operator policy: guardrails main enforces on every write (the renderer and CLI only display them).
  'policy.show': query<PolicyView>()(none),
  /** Tightening applies at once; loosening needs the passphrase and applies after the cooling-off. `value` null turns a rule off. */
  'policy.set': intent<PolicyView>()(
    v.object({
      name: v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.regex(/^[a-z][a-z0-9-]*(:[0-9]{1,10})?$/, 'a policy name')),
      value: v.nullable(v.pipe(v.string(), v.maxLength(40))),
      passphrase: v.optional(passphrase),
    }),
  ),
  'addresses.list': query<AddressBookEntryView[]>()(none),
  'addresses.add': intent<AddressBookEntryView>()(
    v.object({ label: v.pipe(label, v.minLength(1)), address, chainId: idString, passphrase }),
  ),
  'addresses.remove': intent<{ removed: string }>()(v.object({ label: v.pipe(label, v.minLength(1)), passphrase })),
  'policy.halt': intent<HaltResult>()(none),
  'policy.resume': intent<PolicyView>()(v.object({ passphrase })),
  /** Emergency: revokes every occupied agent slot of an account (offered beside halt). */
  'agents.revokeAll': intent<AgentSlotView[]>()(v.object({ owner: address })),

  'journal.query': query<SubmissionView[]>()(journalFilter),
  'journal.export': query<{ filename: string; mime: string; content: string }>()(
    v.object({ format: v.picklist(['csv', 'json'] as const), filter: journalFilter }),
  ),
  'journal.get': query<SubmissionView>()(v.object({ cloid })),
  /** Action types present in the journal of the selected network (the type filter's choices). */
  'journal.actionTypes': query<string[]>()(none),
  /** Journal records of every network as the journal keeps them, newest first (without body and raw answer). */
  'journal.records': query<JournalRecordView[]>()(v.object({ filter: recordFilter })),
  /** One record with its exact signed body, raw answer and state history. */
  'journal.record': query<JournalRecordDetail>()(v.object({ id: v.pipe(v.number(), v.integer(), v.minValue(1)) })),
  /** The records a filter selects, as CSV or JSON text (no default limit). */
  'journal.records.export': query<{ format: 'csv' | 'json'; content: string }>()(
    v.object({ filter: recordFilter, format: v.picklist(['csv', 'json'] as const) }),
  ),
  /** The operator checked an unresolved write on the exchange; journaled, it frees the cloid for a new attempt. */
  'journal.acknowledge': intent<SubmissionView>()(
    v.object({
      id: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/)),
      note: v.pipe(v.string(), v.trim(), v.minLength(3), v.maxLength(500)),
    }),
  ),

  'confirm.respond': intent<{ accepted: boolean }>()(
    v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)), approved: v.boolean(), passphrase: v.optional(passphrase) }),
  ),
  /** Asks the host for a file path (Electron: native dialog; web host: null, the UI asks for a path). */
  'dialog.openFile': query<{ path: string | null }>()(v.object({ purpose: v.picklist(['keystore'] as const) })),
  'shell.openExternal': intent<{ opened: boolean }>()(v.object({ url })),
  /** Settings: link the packaged `desk` launcher into a per-user bin directory (desktop app only). */
  'app.installCli': intent<CliInstallView>()(none),

  ...cliChannels,

  // ---- reports and alerts (issue 14): computed in main from the exchange's data -------------
  /** CSV of fills in [fromMs, toMs) for one account or all of the operator's accounts, with fees and a USD value column. */
  'reports.fillsCsv': query<import('./types').ExportFile>()(
    v.object({ account: v.optional(address), fromMs: timeMs, toMs: timeMs, currency: v.optional(reportCurrency) }),
  ),
  /** CSV of deposits, withdrawals and journaled transfers / settles / repays in [fromMs, toMs). */
  'reports.transfersCsv': query<import('./types').ExportFile>()(
    v.object({ account: v.optional(address), fromMs: timeMs, toMs: timeMs, currency: v.optional(reportCurrency) }),
  ),
  /** Realised PnL per (account, market) from fills, FIFO, exact decimals. */
  'reports.pnl': query<import('./types').PnlReport>()(
    v.optional(v.object({ account: v.optional(address), fromMs: v.optional(timeMs), toMs: v.optional(timeMs) }), {}),
  ),
  'alerts.list': query<import('./types').AlertView[]>()(
    v.optional(
      v.object({ sinceMs: v.optional(timeMs), limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500))) }),
      {},
    ),
  ),
  'alerts.settings.get': query<import('./types').AlertSettingsView>()(none),
  'alerts.settings.update': intent<import('./types').AlertSettingsView>()(
    v.object({
      rules: v.optional(
        v.partial(
          v.object({
            'funds-received': v.boolean(),
            ltv: v.boolean(),
            'order-filled': v.boolean(),
            'earn-claimable': v.boolean(),
            'agent-slot-empty': v.boolean(),
            'write-unresolved': v.boolean(),
            'team-approval': v.boolean(),
            'team-proposal': v.boolean(),
          }),
        ),
      ),
      ltvThresholdsPct: v.optional(v.pipe(v.array(ltvPct), v.maxLength(5))),
      quietHours: v.optional(
        v.nullable(
          v.object({
            start: v.pipe(v.string(), v.regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'HH:MM')),
            end: v.pipe(v.string(), v.regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'HH:MM')),
          }),
        ),
      ),
      checkIntervalSec: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3600))),
      desktopNotifications: v.optional(v.boolean()),
    }),
  ),
  'alerts.acknowledge': intent<import('./types').AlertView>()(
    v.object({ id: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/, 'an alert id')) }),
  ),
  /** Acknowledges every alert not yet acknowledged (the newest 500 kept); returns how many. */
  'alerts.acknowledgeAll': intent<{ acknowledged: number }>()(none),
  /** The currencies an export may use now: USD, and every listed asset whose mark is live (with that mark and its time). */
  'reports.currencies': query<import('./types').ReportCurrencyView[]>()(none),
  /** What a withdrawal would do, from live state, with the age of the data behind it. */
  'withdraw.preview': query<PreviewView>()(withdrawArgs),
  /** The stream pool's status now (a new window shows the panel before the next push). */
  'stream.status': query<StreamStatus>()(v.object({})),

  // ---- team mode (issue 23): a shared PostgreSQL team store, signed roster/policy/proposals -----
  // No channel returns a secret; the store password is sealed in the vault, never in settings.
  /** Team mode as this desk sees it now (also pushed as `state.team`). */
  'team.status': query<TeamStatusView>()(none),
  /**
   * Points this desk at a team store: the connection string (TLS per its sslmode) goes to settings,
   * the password is sealed in the vault (the vault passphrase confirms it). Opens the store and verifies the chain.
   */
  'team.configure': intent<TeamStatusView>()(
    v.object({ connectionString: teamConnectionString, password: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)), passphrase }),
  ),
  /** The first admin: creates this vault's identity key if needed and writes the genesis (this operator, admin, quorum 1). */
  'team.init': intent<TeamStatusView>()(v.object({ teamName: memberName, name: memberName, passphrase })),
  /** Creates this vault's identity key if needed and returns its address, for an admin to add with `team.members.add`. */
  'team.join': intent<{ address: Address }>()(v.object({ passphrase })),
  /**
   * Leaves the team this vault is bound to: only once the team's verified roster no longer holds this
   * operator (the admins removed them, under their quorum). The vault passphrase confirms it.
   */
  'team.leave': intent<TeamStatusView>()(v.object({ passphrase })),
  /**
   * Puts an account's owner key under team custody (issue 32): split `threshold` of the holders'
   * shares (and one offline recovery share, written by main to `recoveryFile` when given), sealed to
   * each holder's identity key, under the admin quorum. The key then leaves this vault.
   */
  'team.custody.split': intent<TeamCustodySplitView>()(
    v.object({
      account: address,
      holders: v.pipe(v.array(address), v.minLength(2), v.maxLength(15)),
      threshold: v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(16)),
      recoveryFile: v.nullable(filePath),
    }),
  ),
  /**
   * Re-splits a team-held account to new holders (a member left, a desk was lost), sealed by this
   * desk: authorised by the admin quorum; the current holders release their shares to this desk, or
   * the offline recovery share (`recoveryShareFile`) stands in for one. The address stays.
   */
  'team.custody.resplit': intent<TeamCustodySplitView>()(
    v.object({
      account: address,
      holders: v.pipe(v.array(address), v.minLength(2), v.maxLength(15)),
      threshold: v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(16)),
      recoveryFile: v.nullable(filePath),
      recoveryShareFile: v.nullable(filePath),
    }),
  ),
  /** Each team-held account: its share holders, the threshold, and the last release. */
  'team.custody.status': query<TeamCustodyView[]>()(none),
  /** This member's co-signer rule: release a share for writes the verified team policy allows outright (off by default). */
  'team.custody.cosign': intent<{ coSign: boolean }>()(v.object({ on: v.boolean() })),
  'team.members': query<TeamMembersView>()(none),
  /**
   * Roster changes are signed by this operator (an admin). With an admin quorum above 1 the change waits
   * for the other admins (TeamChangeNeedsAdmins, details.changeId): each signs it with `team.changes.sign`.
   */
  'team.members.add': intent<TeamMembersView>()(v.object({ address, name: memberName, roles: teamRoles })),
  'team.members.remove': intent<TeamMembersView>()(v.object({ address })),
  'team.members.roles': intent<TeamMembersView>()(v.object({ address, roles: teamRoles })),
  /** How many admins must sign each roster or policy change (itself a roster change, signed by the quorum in force). */
  'team.quorum': intent<TeamMembersView>()(v.object({ adminQuorum: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)) })),
  /** Roster and policy changes collecting their admin quorum, as this desk verifies them. */
  'team.changes': query<TeamChangeView[]>()(none),
  /** Adds this admin's signature to a change; with the quorum reached, the change enters the chain. */
  'team.changes.sign': intent<{ applied: boolean; signatures: number; quorum: number }>()(v.object({ id: proposalId })),
  /** The current ordered rules (first match wins, no match blocks) and every version. */
  'team.policy': query<TeamPolicyView>()(none),
  /** A new policy version with these rules, signed by this operator (an admin; above quorum 1 it waits for the others, as roster changes do). */
  'team.policy.set': intent<TeamPolicyView>()(
    v.object({ rules: v.pipe(v.array(teamRule), v.maxLength(200)), groups: v.optional(teamGroups), names: v.optional(teamNames) }),
  ),
  /** needsMe: open, this operator may approve; waiting: open, initiated by this operator or waiting on others; history: the rest. */
  'team.proposals': query<TeamProposalView[]>()(
    v.object({
      view: v.picklist(['needsMe', 'waiting', 'history'] as const),
      kind: v.optional(v.picklist(TEAM_ACTION_KINDS)),
      account: v.optional(address),
    }),
  ),
  /** One proposal: the initiator's preview and this desk's recomputed one side by side, who approved when. */
  'team.proposal': query<TeamProposalDetail>()(v.object({ id: proposalId })),
  'team.approve': intent<TeamProposalView>()(v.object({ id: proposalId })),
  'team.reject': intent<TeamProposalView>()(
    v.object({ id: proposalId, reason: v.pipe(v.string(), v.trim(), v.minLength(3), v.maxLength(500)) }),
  ),
  /** The desk holding the signing key runs an approved proposal: the same write replayed through the pipeline, signed once. */
  'team.execute': intent<WriteOutcome>()(v.object({ id: proposalId })),
  /** Verifies the whole chain from genesis (no trusted head) and names the first bad entry. */
  'team.verify': query<TeamVerifyView>()(none),
  /** The team log as CSV, each entry with its hash. */
  'team.export': query<import('./types').ExportFile>()(none),
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
