/**
 * Data that crosses the process boundary (IPC or the web host's socket). Plain JSON only:
 * amounts, prices, sizes, ids and nonces are decimal strings, never numbers; times are
 * Unix milliseconds as numbers (safe below 2^53).
 */

export type Address = `0x${string}`
/** A display decimal string, exact ("12.5"). */
export type Decimal = string
/** An integer atom string ("1250000000"). */
export type Atoms = string

export interface ErrorData {
  code: string
  message: string
  details?: Record<string, string | number | boolean | null>
}

/** Every invoke resolves to this: errors are plain data, never thrown stacks. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorData }

// ---- app, vault, accounts -------------------------------------------------------------

export interface VaultStatus {
  exists: boolean
  unlocked: boolean
  /** ms since epoch when the passphrase was last entered, null when locked. */
  lastPassphraseAt: number | null
  autoLockMinutes: number
}

export type NetworkKind = 'sandbox' | 'testnet' | 'mainnet' | 'custom'

export interface NetworkView {
  name: string
  kind: NetworkKind
  chainId: number
  tradingUrl: string
  wsUrl: string
  earnUrl: string
  infoRatePerSec: number
  tradeRatePerSec: number
  /** Strict limits in force (one connection, 10 subscriptions, 30 new connections a minute): always on a real network, on the sandbox unless turned off */
  strictLimits: boolean
  configured: boolean
}

export interface AppState {
  version: string
  network: NetworkView
  vault: VaultStatus
  /** The host driving the renderer: Electron or the loopback web host (tests, development). */
  host: 'electron' | 'web'
}

export type AccountKind = 'balance' | 'credit' | 'unknown'

export interface AccountView {
  address: Address
  label: string
  group: string
  /** owner key present in the vault (false: watch-only). */
  hasKey: boolean
  kind: AccountKind
  status: 'active' | 'frozen' | 'none' | 'unknown'
  accountIndex: string | null
}

// ---- portfolio, credit ------------------------------------------------------------------

export interface BalanceView {
  assetId: number
  symbol: string
  available: Decimal
  locked: Decimal
  total: Decimal
  /** USD value at mark, null when the mark is missing or stale (never shown as zero). */
  usdValue: Decimal | null
}

export interface CreditPositionView {
  assetId: number
  symbol: string
  actual: Decimal
  pendingExposure: Decimal
  ltvPercent: number
  /** USD contribution to the credit line after the LTV haircut; null without a mark. */
  contributionUsd: Decimal | null
  markUsd: Decimal | null
  markAgeMs: number | null
}

export type WarningLevel = 'ok' | 'watch' | 'warning' | 'critical' | 'frozen' | 'unknown'

export interface CreditHealthView {
  address: Address
  status: 'active' | 'frozen'
  creditUsd: Decimal
  availableUsd: Decimal | null
  lastKnownAvailableUsd: Decimal | null
  /** true when availableUsd is null because a mark is stale and lastKnown is shown instead. */
  marksStale: boolean
  oracle: { status: 'available' | 'unavailable'; reasonCode: string | null }
  positions: CreditPositionView[]
  warning: WarningLevel
  tradingWhitelist: string[]
}

export interface CreditSample {
  timeMs: number
  creditUsd: Decimal
  availableUsd: Decimal | null
}

export interface OverviewRow {
  account: AccountView
  totalUsd: Decimal | null
  available: BalanceView[]
  credit: { creditUsd: Decimal; availableUsd: Decimal | null; warning: WarningLevel } | null
  agentsInUse: number
  pendingJournal: number
  /** when this row's data was fetched; the UI shows its age. null when never fetched. */
  fetchedAt: number | null
  stale: boolean
}

export interface OverviewView {
  rows: OverviewRow[]
  totals: { assetId: number; symbol: string; total: Decimal; usdValue: Decimal | null }[]
  totalUsd: Decimal | null
  asOf: number
}

export interface OpenOrderView {
  marketId: string
  oid: string
  cloid: string | null
  side: 'bid' | 'ask'
  price: Decimal
  originalQty: Decimal
  remainingQty: Decimal
  filledQty: Decimal
  timeMs: number | null
}

export interface FillView {
  tid: string
  marketId: string
  side: 'B' | 'A' | null
  price: Decimal
  size: Decimal
  /** null when the service reports no fee */
  fee: Decimal | null
  feeAssetId: number | null
  timeMs: number
  oid: string | null
  cloid: string | null
}

export interface AccountDetailView {
  account: AccountView
  balances: BalanceView[]
  credit: CreditHealthView | null
  openOrders: OpenOrderView[]
  fills: FillView[]
  fetchedAt: number | null
}

export interface MarketView {
  marketId: string
  symbol: string
  priceDecimals: number
  baseQuantityDecimals: number
  baseAssetId: number
  quoteAssetId: number
  creditTrading: boolean
}

export interface AssetView {
  assetId: number
  symbol: string
  balanceDecimals: number
  creditLtv: number
}

// ---- agents -------------------------------------------------------------------------------

export interface AgentSlotView {
  slot: 0 | 1 | 2 | 3
  agent: Address | null
  epoch: string | null
  keyInVault: boolean
  approvedAt: number | null
}

export interface RotationStep {
  step: 'generate' | 'approve' | 'verify-epoch' | 'switch-signer' | 'retire-old-key'
  status: 'done' | 'failed' | 'skipped'
  detail: string
}

// ---- writes -------------------------------------------------------------------------------

/** 'proposed': the write waits for team approvals (WriteOutcome.proposalId); nothing was signed or journaled. */
export type SubmissionState =
  'prepared' | 'sent' | 'accepted' | 'rejected' | 'unknown' | 'reconciled' | 'failed' | 'unresolved' | 'proposed'

/** A write's outcome as every host shows it (core/journal/outcome.ts decides it from the journal). */
export type OutcomeKind = 'pending' | 'success' | 'rejected' | 'notexecuted' | 'failed' | 'unresolved'

export interface SubmissionView {
  id: string
  cloid: string
  network: string
  account: Address
  signer: Address
  actionType: string
  summary: string
  nonce: string | null
  state: SubmissionState
  /** success / failed / unresolved… never guessed: from the exchange's answer or the reconciler's evidence */
  outcome: OutcomeKind
  code: string | null
  finalStatus: string | null
  /** what the operator should do or check (failed, unresolved, rejected) */
  advice: string | null
  /** what the reconciler checked, when it could not settle the outcome (JSON text) */
  evidence: string | null
  /** when an operator acknowledged an unresolved outcome (its cloid may then be used again) */
  acknowledgedAt: number | null
  txHash: string | null
  traceId: string | null
  /** Order ids the write's answer or its reconciliation named. */
  oids?: string[]
  /** Team mode: the proposal this write executed (approved, or recorded as allowed outright); null when none. */
  proposalId?: string | null
  /**
   * The other party the signed action names, read from its exact body: a transfer's recipient, a
   * settle's cash account, a repay's margin account, a withdrawal's destination, an activated
   * address, an approved agent. Null when the action names none (orders, cancels, earn writes).
   */
  counterparty?: Address | null
  createdAt: number
  updatedAt: number
  history: { state: SubmissionState; code: string | null; atMs: number; note: string | null }[]
}

/** What will be signed, shown to the operator before confirmation. */
export interface PreviewView {
  title: string
  /** Human-readable lines: network, signer, action, exact amounts. */
  summary: string[]
  /** The action body exactly as it will be signed (JSON with decimal strings). */
  action: Record<string, unknown>
  /** Predicted balances after the action, per side. */
  effects: { account: Address; label: string; assetSymbol: string; before: Decimal; after: Decimal }[]
  warnings: string[]
}

/** An order ticket as checked (`orders.check`): the exact action that would be signed, and what may refuse it at execution. */
export interface OrderCheckView {
  action: Record<string, unknown>
  marketId: string
  priceAtoms: string
  quantityAtoms: string
  /** Order value in quote atoms (null when the quote asset is unknown). */
  notionalQuoteAtoms: string | null
  warnings: string[]
}

/** An earn withdrawal request as checked (`earn.preview`): the fee and what the operator receives. */
export interface EarnCreatePreviewView {
  user: Address
  assetId: number
  symbol: string
  type: 'scheduled' | 'instant'
  gross: Decimal
  grossAtoms: string
  fee: Decimal
  feeBps: number
  net: Decimal
  /** Seconds until a scheduled withdrawal is claimable; null for instant. */
  waitSeconds: number | null
}

export interface WriteOutcome {
  /** With `submission.state` 'proposed' (id ''): what would be signed once approved; nothing was signed or sent. */
  submission: SubmissionView
  /** The team proposal the decision step made of this write (state 'proposed'), or the one it executes. */
  proposalId?: string
  /** Per-order leaves for order actions (per-order failures keep `accepted`). */
  leaves: { kind: 'open' | 'filled' | 'cancelled' | 'error'; code: string | null; oid: string | null }[]
}

// ---- earn -----------------------------------------------------------------------------------

export interface EarnAssetView {
  assetId: number
  symbol: string
  earnBalance: Decimal
  inQueueBalance: Decimal
  withdrawLockedBalance: Decimal
  lifetimeDeposit: Decimal
  lifetimeYield: Decimal
  lifetimeWithdraw: Decimal
  activeWithdrawOperationId: string | null
  scheduledEnabled: boolean
  instantEnabled: boolean
  instantFeeBps: number
  pendingSeconds: number
  minWithdraw: Decimal
  maxWithdraw: Decimal
  projectedApy: string | null
}

export interface EarnWithdrawalView {
  operationId: string
  assetId: number
  symbol: string
  type: 'scheduled' | 'instant'
  gross: Decimal
  fee: Decimal
  net: Decimal
  status: string
  createdAt: number
  claimableAt: number | null
  canClaim: boolean
  canCancel: boolean
  needsAttention: boolean
  failureCode: string | null
}

export interface EarnOverviewView {
  address: Address
  paused: boolean
  nextUserNonce: string
  assets: EarnAssetView[]
  withdrawals: EarnWithdrawalView[]
  fetchedAt: number
}

export interface EarnPage<T> {
  items: T[]
  nextBeforeId: string | null
}

export interface EarnDepositView {
  id: string
  operationId: string
  type: string
  assetId: number
  amount: Decimal
  status: string
  timeMs: number | null
}

export interface EarnYieldView {
  id: string
  assetId: number
  snapshotBalance: Decimal
  yieldAmount: Decimal
  appliedAt: number
}

// ---- settings, notifications, confirmation ------------------------------------------------------

export interface SettingsView {
  autoLockMinutes: number
  passphraseWindowMinutes: number
  warningThresholds: { watchPct: number; warningPct: number; criticalPct: number }
  theme: 'dark' | 'light'
}

export interface NotificationEvent {
  id: string
  kind: 'fill' | 'rejection' | 'health' | 'stream' | 'lock' | 'info'
  level: 'info' | 'success' | 'warning' | 'error'
  title: string
  message: string
  atMs: number
  /** Alerts: false during the operator's quiet hours (recorded and shown in the panel, no desktop notification). */
  desktop?: boolean
}

/** Pushed by main when an owner-key action needs the operator's confirmation. */
export interface ConfirmRequest {
  id: string
  title: string
  summary: string[]
  needsPassphrase: boolean
  expiresAt: number
  /** Whose call triggered the signature: the app's window, or a `desk` command (the window shows only 'app'). */
  origin: 'app' | 'cli'
  /** The attached `desk` connection that asked (opaque id), so only that client answers; absent for 'app'. */
  client?: string
  /** Structured facts for the dialog (main fills them where it knows them; `summary` stays the full text). */
  details?: ConfirmDetails
}

/** A named party of a confirmation: the operator's name for it ('' when none) and its address. */
export interface ConfirmParty {
  name: string
  address: Address
}

/** What a confirmation dialog shows as separate fields; every one optional so main can fill them step by step. */
export interface ConfirmDetails {
  network?: { name: string; chainId: number | null; kind: NetworkKind }
  /** The account that signs (or whose agent signs). */
  account?: ConfirmParty
  /** The other side: the recipient, destination address-book entry or credit/cash account; null when none. */
  counterparty?: (ConfirmParty & { chainId?: string }) | null
  /** The amount moved in units, and its USD value at the mark (null when no fresh mark). */
  amount?: { units: Decimal; symbol: string; usd: Decimal | null }
  /** Each fee in units (e.g. the activation fee, a withdrawal fee); empty when none. */
  fees?: { label: string; units: Decimal; symbol: string; usd: Decimal | null }[]
  /** The policy checks this write passed, as sentences ("destination cold on chain 1: in the address book, usable since …"). */
  policyChecks?: string[]
  /** The action body exactly as it will be signed (shown on "Show exact action"). */
  action?: Record<string, unknown>
  /** The key that signs: the owner's main key, or an API (agent) key in a slot of that owner. */
  signer?: ConfirmSigner
}

/** A signing key named for the operator: whose it is and which one. */
export interface ConfirmSigner {
  role: 'owner' | 'agent'
  /** The agent slot (0 to 3) when an agent key signs. */
  slot?: number
  /** The operator's name for the key ("Treasury A", "API key slot 1 of Treasury A"); '' when none. */
  label: string
  /** The address the service recovers from the signature. */
  address: Address
  /** The owner account the key acts for. */
  owner: Address
}

export interface StreamStatus {
  connected: boolean
  connections: number
  /** the service's counted WebSocket connections per IP (trading-api.md) */
  connectionLimit: number
  /** connections the subscriptions need at 10 per connection */
  neededConnections: number
  /** connections opened in the last minute, against the service's counted new connections per minute */
  newConnectionsLastMinute?: number
  newConnectionLimitPerMinute?: number
  subscriptions: number
  lastMessageAt: number | null
  reconnects: number
  /** frames dropped as garbage (unreadable, unknown channel, wrong shape) */
  droppedFrames: number
  detail: string
  /** Strict limits in force: one connection, the rest refreshed through /info in turn (absent: a host that does not stream) */
  strict?: boolean
  /** accounts with every channel streaming now */
  liveAccounts?: number
  /** the least fresh account's address and when its balances were current (null: never read) */
  leastFreshUser?: string | null
  leastFreshAt?: number | null
  /** subscriptions moved in or out of the live set since start */
  rotations?: number
}

// ---- operator policy (guardrails enforced in main) ------------------------------------------

/** A rule's value: a decimal string (USD, percent, asset units), a duration in ms (`cooling-off`), or null (off). */
export type PolicyValue = string | null

export interface PolicyRuleView {
  /** `transfer-limit-usd`, `withdraw-daily-limit-usd`, `max-order-usd`, `price-band`, `price-band:<marketId>`, `cooling-off`, `withdraw-asset-limit:<assetId>`... */
  name: string
  value: PolicyValue
  /** What the value means, e.g. "USD per transaction", "percent", "ms". */
  unit: string
  /** A loosening waiting for its cooling-off, if any. */
  pending: { value: PolicyValue; requestedAt: number; effectiveAt: number } | null
}

export interface AddressBookEntryView {
  label: string
  /** EIP-55 checksummed. */
  address: Address
  chainId: string
  addedAt: number
  /** Usable as a destination from this time (cooling-off). */
  usableAt: number
  usable: boolean
}

export interface PolicyEventView {
  id: number
  at: number
  kind: string
  /** Stored text: no clock times in it (a screen shows `times` in the operator's zone, with their age). */
  summary: string
  /** Times the event refers to, by name: effectiveAt, usableAt, since, haltedSince, requestedAt. */
  times?: Record<string, number>
}

export interface PolicyView {
  network: string
  /** The exchange the policy belongs to (signing chain id and service hosts) and every network name used for it. */
  exchange?: { description: string; chainId: number; trading: string; earn: string; aliases: string[] }
  /** The cooling-off in force (ms), and whether it is the sandbox's shorter default. */
  coolingOffMs: number
  sandboxDefaults: boolean
  rules: PolicyRuleView[]
  halted: { since: number } | null
  addresses: AddressBookEntryView[]
  /** Latest policy events (changes, overrides, halt/resume), newest first. */
  events: PolicyEventView[]
}

export interface HaltAccountResult {
  account: Address
  label: string
  /** True when open orders were read back and none remain. */
  verifiedZero: boolean
  cancelledMarkets: number[]
  remaining: { market: number | null; oid: string }[]
  /** Why this account could not be cancelled or verified (watch-only, locked vault, a refused batch...). */
  error: { code: string; message: string } | null
}

export interface HaltResult {
  network: string
  halted: { since: number }
  accounts: HaltAccountResult[]
}

// ---- desk (command line) --------------------------------------------------------------------

/**
 * A secret for a cli-only channel: a file the main process reads itself (the usual case), or the
 * value typed at the desk's hidden TTY prompt. Never logged, never echoed back.
 */
export type CliSecret = { file: string } | { value: string }

/** What `portfolio.status` reads: the overview of the named accounts, now, on the selected network. */
export interface StatusOverviewView extends OverviewView {
  network: string
}

/** A configured network as `networks.list` gives it: the view and its environment's `network` name. */
export interface NetworkListing extends NetworkView {
  network: string
}

/** The journal's own states (`signed`: journaled, not yet handed to the network; the screens call it 'prepared'). */
export const JOURNAL_RECORD_STATES = ['signed', 'sent', 'accepted', 'rejected', 'failed', 'unknown', 'unresolved', 'reconciled'] as const
export type JournalRecordState = (typeof JOURNAL_RECORD_STATES)[number]

/**
 * One journal record as the journal keeps it (the desk's `journal list`): addresses lower case,
 * nonces as decimal strings, times in Unix ms; without the signed body and raw response.
 */
export interface JournalRecordView {
  id: number
  channel: 'trade' | 'earn'
  key: string
  network: string
  account: string
  signer: string
  actionType: string
  summary: string
  nonce: string | null
  businessNonce: string | null
  traceId: string | null
  submitHeight: string | null
  evidence: string | null
  advice: string | null
  acknowledgedAt: number | null
  ackNote: string | null
  oids: string[]
  state: JournalRecordState
  finalStatus: string | null
  code: string | null
  txHash: string | null
  attempts: number
  /** Team mode: the proposal this write executed (approved, or recorded as allowed outright); null when none. */
  proposalId?: string | null
  createdAt: number
  updatedAt: number
  resolvedAt: number | null
}

export interface JournalRecordEvent {
  submissionId: number
  at: number
  state: JournalRecordState
  finalStatus: string | null
  code: string | null
  note: string | null
}

/** One record with its exact signed body (JSON text), the raw last answer and its state history. */
export interface JournalRecordDetail extends JournalRecordView {
  body: string
  response: string | null
  history: JournalRecordEvent[]
}

/** The vault's accounts and key addresses (never key material), as `desk keys list` prints them. */
export interface VaultKeysView {
  path: string
  accounts: {
    address: Address
    label: string
    watchOnly: boolean
    createdAt: string
    agents: { slot: 0 | 1 | 2 | 3; address: Address; createdAt: string }[]
  }[]
  retiredAgents: { owner: Address; slot: 0 | 1 | 2 | 3; address: Address; retiredAt: string }[]
}

/** A vault created by `desk keys init`: where, and the scrypt cost of its key derivation. */
export interface VaultInitView {
  path: string
  kdf: { name: 'scrypt'; n: number; r: number; p: number }
}

/** How `desk` reaches the core: attached to a running app (pid) or the core in its own process. */
export interface CliMode {
  mode: 'attached' | 'standalone'
  pid: number
}

/** Putting the packaged `desk` launcher on the operator's PATH (Settings; desktop app only). */
export interface CliInstallView {
  installed: boolean
  /** the link or launcher the terminal will run */
  path: string | null
  /** whether that directory is already on the PATH of this session */
  onPath: boolean
  message: string
}

// ---- reports (exports, realised PnL) and alerts: issue 14 -------------------------------------

/** A file produced in main for the operator to save (CSV text; amounts are exact decimal strings). */
export interface ExportFile {
  filename: string
  mime: string
  content: string
}

/** Realised PnL of one account in one market (FIFO lots, exact decimals in the market's quote asset). */
export interface PnlRow {
  account: Address
  label: string
  marketId: string
  market: string
  baseSymbol: string
  quoteSymbol: string
  /** fills of this account in this market read from the service (all history it returned, for the lots) */
  fills: number
  /** fills inside [fromMs, toMs) whose closings count here */
  fillsInRange: number
  /** base quantity closed against earlier lots inside the range */
  closedQty: Decimal
  /** proceeds minus FIFO cost of the closed quantity, before fees, in the quote asset */
  realisedGross: Decimal
  /** fees charged in the quote asset on fills inside the range (subtracted in realisedNet) */
  quoteFees: Decimal
  realisedNet: Decimal
  /** fees charged in another asset (the base asset on a buy): reported, never converted */
  otherFees: { assetId: number; symbol: string; amount: Decimal }[]
  /** net base position built from the fills read (negative: sold more than bought in those fills) */
  openQty: Decimal
  /** FIFO cost of the open position, in the quote asset */
  openCost: Decimal
  /** fills the service returned without the account's side (aged out): left out of the lots */
  unknownSideFills: number
  /** time of the oldest fill the service returned: holdings acquired before it (or by deposit) have no cost basis here */
  historyFromMs: number | null
  notes: string[]
}

export interface PnlReport {
  method: 'FIFO'
  methodNote: string
  fromMs: number | null
  toMs: number | null
  rows: PnlRow[]
  /** fills paging could not read (the service keeps the 10000 most recent fills) */
  gaps: string[]
}

export type AlertKind =
  | 'funds-received'
  | 'ltv'
  | 'order-filled'
  | 'earn-claimable'
  | 'agent-slot-empty'
  | 'write-unresolved'
  /** team mode: a proposal waits for my approval */
  | 'team-approval'
  /** team mode: my proposal was approved, rejected or executed */
  | 'team-proposal'

export interface AlertView {
  id: string
  kind: AlertKind
  level: 'info' | 'success' | 'warning' | 'error'
  title: string
  message: string
  account: Address | null
  network: string
  atMs: number
  /** raised inside quiet hours: recorded and shown in the panel, no desktop notification */
  desktopSuppressed: boolean
  acknowledgedAt: number | null
}

export interface AlertSettingsView {
  /** which alert kinds are evaluated */
  rules: Record<AlertKind, boolean>
  /** credit line in use (percent) past which an `ltv` alert is raised, once per crossing */
  ltvThresholdsPct: number[]
  /** local times "HH:MM" (the main process's zone): no desktop notifications from start until end; null = none */
  quietHours: { start: string; end: string } | null
  /** how often the rules are evaluated on live data */
  checkIntervalSec: number
  /** show alerts as desktop notifications (outside quiet hours); off: recorded and shown in the panel only */
  desktopNotifications: boolean
}

/** The `notify` payload of an alert: a NotificationEvent plus the alert's id and whether a desktop notification may be shown. */
export interface AlertNotificationEvent extends NotificationEvent {
  alertId: string
  alertKind: AlertKind
  desktop: boolean
}

// ---- live state: ages and reasons (additions merged into the views above) -------------------

/** Why a USD value is missing, and how old the figures behind one are. */
export interface ValueAge {
  /** ms since epoch of the oldest input (balance or mark) behind the value; null when unknown */
  asOf: number | null
  /** why the value could not be computed ("mark for BTC stale since 12:03:04 UTC"); null when it was */
  reason: string | null
}

export interface BalanceView {
  /** why usdValue is null (no mark, stale mark, oracle down); absent when computed */
  usdReason?: string | null
  /** source time of the mark used, when there was one */
  markAsOf?: number | null
}

export interface OverviewRow {
  /** why totalUsd is null; absent or null when it was computed */
  totalUsdReason?: string | null
  /** 'cache' while the row shows last-known state from the previous run */
  source?: 'live' | 'info' | 'cache'
}

export interface OverviewView {
  /** age and reason of totalUsd (credit accounts included, in USD) */
  totalUsdAge?: ValueAge
  /** per-asset ages and reasons, keyed by asset id, for the rows of `totals` */
  totalsAge?: Record<string, ValueAge>
  /** 'cache': painted from last-known state at start; fresh values follow by push */
  source?: 'live' | 'cache'
}

export interface AccountDetailView {
  /** where each part came from and when: streams first, /info for what they lack */
  ages?: { balances: number | null; credit: number | null; openOrders: number | null; fills: number | null }
  source?: 'live' | 'info' | 'cache'
}

export interface PreviewView {
  /** how old the oldest account data behind this preview is (ms) */
  dataAgeMs?: number | null
  /** the limit above which the desk refuses to sign on it (ms) */
  dataMaxAgeMs?: number
}

/** A currency an export's value column may use now: USD, or an asset at its live mark. */
export interface ReportCurrencyView {
  code: string
  /** USD per unit at the current mark (exact decimal); null for USD */
  markUsd: Decimal | null
  markTimeMs: number | null
}

// ---- order ticket (issue 14) ----------------------------------------------------------------

/** One side of the top of the book. */
export interface BookLevelView {
  price: Decimal
  size: Decimal
}

/** What the order ticket shows before Place order, computed in main from live state. */
export interface OrderPreviewView {
  market: {
    marketId: string
    symbol: string
    baseSymbol: string
    quoteSymbol: string
    /** Smallest price step: one unit at `price_decimals`. */
    tickSize: Decimal
    /** Smallest quantity: one unit at `base_quantity_decimals`. */
    minSize: Decimal
    /** Minimum order notional in the quote asset (`quoteAssets.min_quantity`); null when the service lists none. */
    minNotional: Decimal | null
    priceDecimals: number
    baseQuantityDecimals: number
    maxPriceSigFigs: number
  }
  /** Best bid and offer, from `/info l2Book` within the rate budget (cached briefly). */
  book: { bid: BookLevelView | null; ask: BookLevelView | null; readAt: number; lastChangeMs: number | null; source: 'stream' | 'info' }
  /** Base mark over quote mark, in quote per base (null when either mark is missing or stale). */
  markPrice: Decimal | null
  /** price x quantity in quote units, exact; null until both parse. */
  value: Decimal | null
  /** What the order spends (quote for a buy, base for a sell) that is available; null when unknown (credit account). */
  available: { units: Decimal; symbol: string } | null
  /** The key that will sign the order; null when none can (reason in `problems`). */
  signer: ConfirmSigner | null
  /** Reasons the service would refuse this order (below the minimum, off tick, over balance...). */
  problems: string[]
  warnings: string[]
  /** Age of the oldest data used (book, balances), and the limit past which the desk refuses. */
  dataAgeMs: number | null
  dataMaxAgeMs: number
  /** The operator's price band as main judges this order at Place order; null until a price parses. */
  band?: OrderBandView | null
}

/** The price band an order is judged by before signing (policy), as the ticket shows it before Place order. */
export interface OrderBandView {
  /** The band in percent; null when no band is in force (off). */
  percent: Decimal | null
  /** The reference price (the far side of the book, else the mark); null when neither is known. */
  reference: Decimal | null
  /** Where the reference came from ("best ask in the book", "mark"). */
  referenceSource: string | null
  /** Why main refuses this order for its band; null when it is inside (or no band is set). */
  breach: string | null
  /** The phrase that places this one order outside the band anyway (journaled); null when inside. */
  confirmText: string | null
}

/** One owner's agent slots, pushed when they change (`state.agents`). */
export interface AgentSlotsView {
  owner: Address
  slots: AgentSlotView[]
  /** when the slots were read (ms) */
  fetchedAt: number
}

export interface OverviewRow {
  /** why this row is not current (its read failed); its values are the last known ones */
  readError?: string | null
  /** why `credit.availableUsd` is null (a stale or missing mark, the oracle), or why the credit line is not current */
  creditReason?: string | null
}

export interface CreditHealthView {
  /** why `availableUsd` is null, in words (stale mark, oracle down) */
  availableReason?: string | null
}

// ---- team mode (issue 23): several operators, one PostgreSQL team store, four-eyes approvals ----

export const TEAM_ROLES = ['viewer', 'trader', 'approver', 'admin'] as const
export type TeamRole = (typeof TEAM_ROLES)[number]
/** Action kinds a team policy rule can name (core/team/policy.ts ACTION_KINDS). */
export const TEAM_ACTION_KINDS = [
  'settle',
  'repay',
  'transfer',
  'withdraw',
  'activation',
  'agent_approve',
  'agent_revoke',
  'agent_rotate',
  'earn_request',
  'earn_claim',
  'earn_cancel',
  'order',
  'cancel',
  'halt',
  'resume',
  'address_book',
  'limits',
  'key_export',
  'key_add',
  'key_remove',
  'vault_passphrase',
] as const
export type TeamActionKind = (typeof TEAM_ACTION_KINDS)[number]
/** Which way a guardrail change moves (core/team/policy.ts DIRECTIONS); a rule may match one (limits, address_book only). */
export const TEAM_RULE_DIRECTIONS = ['tighten', 'loosen'] as const
export type TeamRuleDirection = (typeof TEAM_RULE_DIRECTIONS)[number]

/**
 * off: no team configured (single operator, as before); connecting: the store is being opened and
 * the chain verified; live: verified and receiving pushes; unreachable: the store cannot be reached
 * (team writes refused, nothing lost); tampered: the chain does not verify (`broken` names the first bad entry).
 */
export type TeamLinkState = 'off' | 'connecting' | 'live' | 'unreachable' | 'tampered'

export interface TeamStatusView {
  configured: boolean
  state: TeamLinkState
  /** one human sentence about `state` ("team store unreachable since 12:01:04", "entry 17: signature ...") */
  detail: string
  /** the first entry that does not verify (state 'tampered'); seq as a decimal string */
  broken: { seq: string; reason: string } | null
  /** where the store is (no password): host, port, database, user, sslmode */
  store: { host: string; port: number; database: string; user: string; sslmode: string } | null
  teamId: string | null
  teamName: string | null
  /** this desk's operator: identity key address (null before one is created), name and roles in the verified roster */
  me: { address: Address | null; name: string | null; roles: TeamRole[] }
  /** verified entries and the head's seq/digest */
  chain: { length: number; headSeq: string | null; headDigest: string | null }
  policyVersion: number | null
  /** open proposals this operator may approve now */
  needsMyApproval: number
  /** open proposals this operator initiated, waiting on others */
  waitingOnOthers: number
}

export interface TeamMemberView {
  address: Address
  name: string
  roles: TeamRole[]
  /** this desk's operator */
  me: boolean
}

export interface TeamMembersView {
  adminQuorum: number
  members: TeamMemberView[]
}

/** A roster or policy change collecting its admin quorum (team.changes): each admin signs it on their own desk. */
export interface TeamChangeView {
  /** its change digest: what every admin signs */
  id: string
  kind: 'roster' | 'policy' | 'custody'
  /** what it does, in words */
  summary: string[]
  /** admins whose signature this desk verified */
  signers: { address: string; name: string | null }[]
  quorum: number
  /** why it can no longer be applied (the roster or policy moved on, or the stored row is bad); null while it can */
  stale: string | null
  signedByMe: boolean
  canSign: boolean
  at: number
}

export type TeamEffectView = { effect: 'allow' } | { effect: 'block' } | { effect: 'approve'; count: number; roles: TeamRole[] }

/** A policy rule: first match wins, no match blocks. USD amounts are decimal strings. */
export interface TeamRuleView {
  id: string
  kinds?: TeamActionKind[]
  accounts?: Address[]
  /** the policy's account groups it names: it matches an account in any of them (or in `accounts`) */
  groups?: string[]
  /** matches when the write's USD value is at least this */
  minUsd?: Decimal
  /** ... or when the rolling-window total including this write is at least this */
  minWindowUsd?: Decimal
  destinations?: Address[]
  /** limit and address-book changes in this direction only (removing a limit or adding an address loosens) */
  direction?: TeamRuleDirection
  then: TeamEffectView
}

export interface TeamPolicyVersionView {
  version: number
  seq: string
  digest: string
  rules: TeamRuleView[]
  /** account groups by name (signed with this version) */
  groups: Record<string, Address[]>
}

export interface TeamPolicyView {
  version: number | null
  rules: TeamRuleView[]
  /** account groups by name, as the rules name them */
  groups: Record<string, Address[]>
  /** the team's names for addresses (accounts, destinations), signed with the policy: the same on every desk */
  names: Record<string, string>
  /** every version, oldest first */
  history: TeamPolicyVersionView[]
}

export type TeamProposalStatus = 'open' | 'approved' | 'rejected' | 'expired' | 'signed' | 'final'

export interface TeamProposalView {
  /** the proposal entry's digest */
  id: string
  seq: string
  status: TeamProposalStatus
  network: string
  account: Address
  kind: TeamActionKind
  cloid: string
  title: string
  /** USD value at the initiator's marks (decimal string), null when the write moves no value or its value was unknown */
  usd: Decimal | null
  /** set when the value (or the account's 24 h total) was unknown when proposed: what to show instead of a value, never "none" or $0 */
  usdUnknown: string | null
  /** what it moves, in the asset's units with its symbol ("2,500 USDC"); null when it moves no amount */
  amount: string | null
  destination: Address | null
  initiator: { address: Address; name: string | null }
  policyVersion: number
  rule: string
  needs: { count: number; roles: TeamRole[] }
  /** every approval in the chain; `counts` false for one that no longer counts (removed member, role gone) */
  approvals: { address: Address; name: string | null; at: number; counts: boolean }[]
  rejection: { address: Address; name: string | null; reason: string; at: number } | null
  signed: { address: Address; name: string | null; at: number } | null
  /** the latest outcome (journal state or 'expired') */
  outcome: { state: string; finalStatus: string | null; code: string | null; at: number } | null
  at: number
  expiresAt: number
  /** this operator may approve / reject it now (the chain's own rules) */
  canApprove: boolean
  canReject: boolean
  /** approved, and this desk holds the signing key for its account: `team.execute` may run it */
  canExecute: boolean
  /** this operator initiated it */
  mine: boolean
}

export interface TeamPreviewView {
  title: string
  lines: string[]
}

/**
 * One field of the approver's review: what the proposal says beside what this desk reads itself
 * from the exact action (and computes now at its own marks). `unreadable`: this desk cannot read it
 * (said so, never counted as a difference).
 */
export interface TeamReviewField {
  key: 'kind' | 'network' | 'account' | 'signer' | 'asset' | 'amount' | 'destination' | 'usd' | 'rule' | 'cloid'
  label: string
  initiator: string | null
  mine: string | null
  state: 'same' | 'differs' | 'unreadable'
  note?: string
}

export interface TeamProposalDetail extends TeamProposalView {
  /** each field once: the initiator's reading beside this desk's own decoding of the exact action */
  review: TeamReviewField[]
  /** the team's names (signed in its policy) for the addresses this proposal involves */
  names: Record<string, string>
  /** the account is held by the team's shares: who holds one, how many sign, and whether this desk holds one */
  custody: { threshold: number; holders: { address: Address; name: string | null }[]; mine: boolean } | null
  /** the initiator's figures, as signed into the proposal */
  initiatorPreview: TeamPreviewView
  /**
   * The same write recomputed now by this desk from live data (never the initiator's figures alone);
   * null with `recomputeError` when it cannot be recomputed here (no session, a refused guardrail...).
   */
  recomputed: (TeamPreviewView & { computedAt: number; usd: Decimal | null }) | null
  recomputeError: string | null
  /** the exact action that will be signed (JSON) */
  action: Record<string, unknown>
  /** the same action as shown to the operator: its amount in the asset's units with the symbol, never atoms */
  actionShown: Record<string, unknown>
  /** the channel this write came from (replayed by `team.execute`) */
  channel: string | null
  /** `evidence`: what a desk that could not establish the outcome checked (e.g. a takeover's txStatusByCloid read). */
  outcomes: { address: Address; state: string; finalStatus: string | null; code: string | null; at: number; evidence?: string }[]
}

/** An account held by the team's shares (issue 32). */
export interface TeamCustodyView {
  account: Address
  version: number
  threshold: number
  holders: { address: Address; name: string | null }[]
  /** whether an offline recovery share exists (it is never stored by any desk) */
  recovery: boolean
  lastRelease: { at: number; holder: Address; proposalId: string } | null
}

export interface TeamCustodySplitView {
  account: Address
  version: number
  threshold: number
  holders: Address[]
  /** the recovery share file's checksum, to check the stored-away copy against */
  recoveryChecksum: string | null
  /** true: the custody entry is in the chain and the key left this vault; false: it waits for the other admins */
  applied: boolean
}

export interface TeamVerifyView {
  ok: boolean
  /** rows in the store */
  entries: number
  /** rows verified from genesis (the prefix before `broken`) */
  verified: number
  broken: { seq: string; reason: string } | null
  headSeq: string | null
  headDigest: string | null
  /**
   * The highest head this desk verified before (kept sealed in its vault); a store chain shorter
   * than it, or different at it, is a rollback or a fork and `ok` is false. Null before the first.
   */
  keptSeq?: string | null
  keptDigest?: string | null
}

/** Pushed as `state.team` on every verified change of the chain and every change of the link. */
export interface TeamEvent {
  status: TeamStatusView
  /** proposals, approvals or outcomes changed since the last push: re-read `team.proposals` */
  proposalsChanged: boolean
  /** the admin changes collecting signatures changed (made, signed, applied, dropped): re-read `team.changes` */
  changesChanged?: boolean
}

/**
 * What a screen watches (`screen.watch`): an account page, a credit page, or the accounts the
 * overview shows through its filter (at most 200). Main follows the target live while the lease holds.
 */
export type ScreenTarget =
  { kind: 'account'; address: Address } | { kind: 'credit'; address: Address } | { kind: 'overview'; addresses: Address[] }

/** A screen's lease: renew it (`screen.watch` with the same id) within `ttlMs`, or it lapses. */
export interface ScreenLeaseView {
  leaseId: string
  /** The lease lapses this long after its last renewal. */
  ttlMs: number
  /** How often the renderer renews it (a third of `ttlMs`). */
  renewEveryMs: number
}
