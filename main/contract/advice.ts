/**
 * What the operator should do about a code the desk shows: one sentence per code, from the
 * spec's handling tables (trading /trade and /info, the order states, earn) and the desk's own
 * codes. The ONE table: the core journals these texts with outcomes (so the CLI and exports
 * say the same) and the renderer shows them next to the code and the service's message,
 * never instead of them. It lives in the contract because both sides import it.
 */

const ADVICE: Readonly<Record<string, string>> = Object.freeze({
  // Transport and outcome (trading-api §4 timeout handling, §7 /trade)
  Unavailable: 'Never executed: the request did not reach a node. The desk resends the same signed bytes; do not sign again.',
  NodeUnreachable: 'Outcome unknown: the desk is reconciling by cloid. Do not resubmit; watch the journal entry until it resolves.',
  Timeout: 'Outcome unknown: the desk is reconciling by cloid. Do not resubmit; watch the journal entry until it resolves.',
  OutcomeUnknown: 'Outcome unknown: the desk is reconciling by cloid. Do not resubmit; watch the journal entry until it resolves.',
  TooManyPending: 'Never admitted: the service is busy. Try again in a moment.',
  RateLimited: 'Never admitted: over the rate budget. Wait for the retry delay; the desk paces its own requests.',
  QueryLagBackpressure: 'Never admitted: the service is lagging. Try again shortly.',
  PlaceOrderSuspended: 'The write path is degraded: only cancels are accepted. Cancel if you need to; place orders later.',
  RequestTooLarge: 'The request is too large for the service. Split it.',
  // Only the browser host (`npm run web`) has a connection to lose: the tab keeps its token, so a reload reconnects.
  HostDisconnected:
    'The connection to the desk host (npm run web) was lost or refused. If the host still runs, reload this tab: it reconnects with its token. ' +
    'If the host was started again, open the URL it printed in this tab (each launch has a new token). ' +
    'Journaled writes are reconciled when the host starts.',
  BadReply: 'The host sent something unexpected. Restart the desk; check the main-process log.',
  NotAvailable: 'This function is not available in this build or on this network.',
  Internal: 'An internal error occurred. Check the main-process log; the journal keeps every submission.',
  InfoUnreachable: 'The service could not be reached for reading. Values shown are the last known; check the network settings.',
  InfoTimeout: 'A read timed out. Values shown are the last known; the desk retries within the rate budget.',
  InfoServerError: 'The service failed to answer a read. Values shown are the last known; try again later.',
  // Reads the service refused (trading-api §7 /info): the desk built them, nothing changed.
  InvalidInfoRequest: 'The service could not read the query the desk sent. Nothing changed; report this with the main-process log.',
  UnsupportedInfoType: 'The service does not offer this read. Nothing changed; check that the network points at the right service version.',
  InvalidMultisigScope: 'Only the accounting multisig scope can be read. Nothing changed; report this.',
  InvalidFillsQuery: 'The fills query was refused (limit or height range). Nothing changed; narrow the range and read again.',
  HistoryWindowExceeded: 'Fills by height are kept for about 10000 blocks (about 8 minutes). Read older fills by time instead.',
  InvalidOrderStatusQuery: 'An order status read needs an order id, or an account, market and cloid. Nothing changed; report this.',
  InvalidMarketId: 'The market id is not valid. Pick a market from the list.',
  InvalidCloid: 'The cloid is not valid (16 bytes of hex). Nothing executed.',
  // Vault and confirmation
  PassphraseIncorrect: 'The passphrase is wrong. Type it again (check the keyboard layout and caps lock).',
  PassphraseWeak: 'Choose a longer passphrase that is not a common word, a sequence or a repeated pattern.',
  VaultLocked: 'The vault is locked. Unlock it, then try again.',
  VaultExists: 'A vault already exists here. Unlock it instead of creating a new one.',
  VaultNotFound: 'No vault yet. Create one first.',
  VaultCorrupt: 'The vault file is damaged. Restore it from the backup next to it; do not overwrite it.',
  VaultChangedOnDisk: 'The vault changed on disk since it was opened. Lock and unlock again.',
  ConfirmationDeclined: 'You declined the confirmation; nothing was signed.',
  ConfirmationRequired: 'This action needs your confirmation. Try again and approve it in the dialog.',
  WatchOnlyAccount: 'This account is watch-only: the desk has no key for it. Import its keystore to act on it.',
  AccountNotInVault: 'The desk has no key for this account. Import its keystore first.',
  AccountExists: 'This account is already known to the desk.',
  KeystoreMacMismatch: 'The keystore passphrase is wrong (or the file is damaged). Type the keystore passphrase again.',
  KeystoreInvalid: 'This file is not a valid keystore (Web3 Secret Storage v3).',
  AgentSlotOccupied: 'That slot already has an agent. Rotate or revoke it instead.',
  AgentKeyNotFound: 'The agent key is not in the vault. Approve a new agent for this slot.',
  KeyInUse: 'That key is in use as a signer. Rotate it out first.',
  // Amounts and requests
  InvalidAmount: 'The amount is not valid for this asset: check its decimals (it is never rounded).',
  InvalidQuantityPrecision: 'The quantity has more decimals than the market allows; it is never rounded. Fix the quantity.',
  InvalidDecimals: 'The amount has more decimals than the asset allows; it is never rounded.',
  // Settlement and balances (trading-api §4 actions)
  StaleData:
    'The account data behind this is older than the limit and could not be refreshed (the stream or the service is not answering); ' +
    'nothing was signed. Wait for the stream to reconnect, then preview again.',
  InsufficientSpotBalance: 'Not enough available balance on the paying account. Lower the amount or fund the account first.',
  InsufficientSpotCredit: 'The credit line does not cover this. Lower the amount, or repay or add collateral first.',
  InvalidSettle:
    'Settle refused: the signer must be an active credit account with a settleable long, the cash account a balance-mode account, ' +
    'and the amount no more than the long.',
  InvalidRepay:
    'Repay refused: the payer must be a balance-mode account and the margin account a credit account with a short at least this large.',
  InvalidCashAccount: 'The cash account must be an existing balance-mode account.',
  InvalidMarginAccount: 'The margin account must be an existing credit account.',
  InvalidAssetId: 'The asset is not known to the service. Pick another asset.',
  SpotCreditAccountFrozen: 'The credit account is frozen. Repay to reduce the short; settle is blocked until it is unfrozen.',
  OracleMarkPriceMissing:
    'A fresh mark is missing for an asset left on the account. Wait for the oracle, or settle the full position to zero.',
  ActionNotAllowedForSpotCreditAccount: 'Credit accounts cannot send or receive transfers, or activate others. Use settle or repay.',
  AccountNotFound: 'The account is not registered on the service. Activate it first (activateFor).',
  TransferToSelf: 'The source and the destination are the same account. Pick another destination.',
  InvalidTransfer: 'The destination is the zero address or the amount is zero.',
  InvalidActivationFeeAsset: 'The activation fee is paid in asset 1 or asset 2 only.',
  AccountAlreadyActivated: 'That account is already active; nothing to do.',
  AddressIsAgent: 'That address is an agent key, not an account. Check the target address.',
  InvalidAccountActivation: 'The target is the zero address, or the signer cannot activate accounts.',
  WithdrawDuplicateNonce: 'That withdrawal nonce was already used. Submit the withdrawal again; the desk picks a fresh nonce.',
  MissingCloid: 'The service needs a cloid on this action. Nothing executed; report this.',
  // Agents and signatures
  InvalidAgentSlot: 'Agent slots are 0 to 3.',
  InvalidAgent: 'The agent address is not valid.',
  AgentEpochMismatch: 'The agent key is from an older epoch. Rotate the agent for this slot.',
  UnknownAgent: 'The signer is not an approved agent of this owner. Approve it, or sign with the owner key.',
  DirectSignerIsActiveAgent: 'This key is an active agent and cannot sign as an owner. Use the owner key.',
  BadSignature: 'The signature did not verify. Check the network (chain id) and the key; do not retry blindly.',
  WrongChainId: 'Signed for another network. Check the selected network and its chain id in Settings.',
  BadNonce: 'The nonce was refused (duplicate or outside the window). The desk picks a fresh one; submit again.',
  ExpiredTx: 'The envelope expired before it executed; nothing happened. Submit again.',
  LegacySignatureNotAccepted: 'This action must be signed as EIP-712 by the owner key. Nothing executed; report this.',
  Eip712AgentEpochNotAllowed:
    'Agent approval and revocation are signed by the owner without an agent epoch. Nothing executed; report this.',
  // Envelopes the desk built and the service refused (nothing executed)
  MalformedTx: 'The desk built a request the service could not parse. Report this; nothing executed.',
  InvalidJson: 'The service could not parse the request envelope. Nothing executed; report this.',
  AmbiguousAuthFields: 'The envelope carried no signature or two kinds. Nothing executed; report this.',
  SignaturesNotAllowedForAction: 'Multisig signatures are not accepted for this action. Nothing executed; report this.',
  FeatureDisabled: 'This feature is turned off on the service. Nothing executed.',
  InvalidBatchLength: 'The batch length was refused (1 to 10 items). Nothing executed.',
  EncodeLengthOverflow: 'The batch length was refused (1 to 10 items). Nothing executed.',
  MinTradeSpotNtl: 'The order notional is below the market minimum. Increase the quantity or price.',
  MissingOidOrCloid: 'The cancel needs an order id.',
  // Per-order leaf codes and order states (trading-api §3, §4). Benign closes: the order is
  // closed, no fix needed, but it may have traded.
  ioccancel: 'Closed by its time in force (IOC); it may have traded partly. Check its fills; no fix needed.',
  fokcancel: 'Fill-or-kill closed without completing; it may still have traded. Check its fills before placing it again.',
  selftradepreventioncancel: 'Closed when it met your own resting order; fills before that point are real. Check its fills.',
  marketordernoliquidity: 'The market order found no liquidity and closed; it may have traded partly. Check its fills.',
  missingorder:
    'The order was no longer open (it may have filled or been cancelled already): the cancel did nothing. Check the order status and fills.',
  marketnotfound: 'The market does not exist. Nothing was placed or cancelled.',
  tick: 'The price is not on the market tick. Nothing was placed; fix the price.',
  lotsize: 'The quantity is not on the market lot size. Nothing was placed; fix the quantity.',
  badalopx: 'The post-only order would have crossed the book and was closed. Nothing traded.',
  insufficientspotbalance: 'Not enough available balance for this order. Nothing was placed.',
  insufficientspotcredit: 'The credit line does not cover this order. Nothing was placed.',
  mintradespotntl: 'The order notional is below the market minimum. Nothing was placed.',
  accountopenorderlimit: 'The account has 1000 open orders in this market. Cancel some first.',
  maxfillsexceeded: 'The order hit the 100-fills limit; the filled part is real. Check its fills.',
  invalidsettle:
    'The settle executed and failed (for example it would over-settle the long). Nothing moved; check the position before settling again.',
  invalidrepay:
    'The repay executed and failed (for example it would over-repay the short). Nothing moved; check the short before repaying again.',
  failed: 'The transaction executed and failed without a single error code. Check balances and the order status before trying again.',
  // Desk write outcomes (the submitter's failure kinds)
  TradeNeverSent: 'Nothing reached the service: it is safe to try again.',
  TradeRejected: 'The service refused it; nothing executed. Fix the cause, then try again.',
  TradeOutcomeUnknown:
    'Outcome unknown: it may have executed. The desk is reconciling by cloid \u2014 do not resubmit; watch the submission below.',
  // Desk service codes
  WaitBudgetTimeout:
    'Outcome unknown: the service did not answer within its wait budget. The desk is reconciling by cloid; do not resubmit.',
  UnreadableAnswer: 'Outcome unknown: the answer could not be read. The desk is reconciling by cloid; do not resubmit.',
  CloidInFlight: 'A submission with this cloid is still in flight. Wait for it to resolve in the journal.',
  OwnerKeyMissing: 'The owner key for this account is not in the vault. Import its keystore first.',
  SignerNotInVault: 'The signing key is not in the vault. Import it, or rotate the agent.',
  NoTradingKey: 'No agent key is ready for trading on this account. Approve or rotate an agent first.',
  AgentEpochRequired: 'The agent epoch is unknown. Refresh the agents screen, or rotate the agent.',
  AgentNotVisible: 'The service does not show the new agent yet. Refresh in a moment; do not approve twice.',
  CreditTradingDisabled: 'Credit trading is not enabled for this market.',
  UnknownAsset: 'The asset is not known on this network. Refresh the markets, or pick another asset.',
  UnknownMarket: 'The market is not known on this network. Pick another market.',
  InvalidPrice: 'The price is not valid for this market (precision or format); it is never rounded.',
  InvalidQuantity: 'The quantity is not valid for this market (precision or format); it is never rounded.',
  InvalidAddress: 'That is not a valid 0x address.',
  InvalidChainId: 'The destination chain id is not valid.',
  WithdrawBelowMinimum: 'The amount is below the minimum withdrawal for this chain and asset. Raise it.',
  WithdrawBelowFee: 'The amount must exceed the withdrawal fee. Raise it.',
  WithdrawAboveMaximum: 'The amount is above the maximum for one withdrawal. Split it or lower it.',
  WithdrawTokenUnsupported: 'This asset cannot be withdrawn to that chain.',
  WithdrawTypeDisabled: 'That withdrawal type is turned off for this asset. Use the other type.',
  InvalidWithdrawType: 'Pick scheduled or instant.',
  WithdrawalNotFound: 'No such withdrawal for this account. Refresh the queue.',
  NotClaimableYet: 'Not claimable yet: wait for the countdown to reach zero.',
  ActiveWithdrawalExists: 'One withdrawal per account and asset: wait for the active one to finish, or cancel it if it is scheduled.',
  InsufficientEarnBalance: 'The gross amount exceeds the earn balance. Lower it.',
  InvalidOperationId: 'The withdrawal id is not valid. Refresh the queue.',
  // Earn pool (earn-api §7: numeric codes as journaled, and the desk's names for them)
  '131002': 'The pool backend is unavailable; retried. Values are the last known, never an empty result.',
  '131004': 'The pool refused the request (invalid parameter or state not satisfied); read its message.',
  '131006': 'The pool timed out; retried with the same signed request.',
  '201005': 'Over the pool rate limit; the desk waits for the next second and retries.',
  EarnBackendUnavailable: 'The pool backend is unavailable; retried. Values are the last known, never an empty result.',
  EarnUpstreamTimeout: 'The pool timed out; retried with the same signed request.',
  EarnRateLimited: 'Over the pool rate limit; the desk waits for the next second and retries.',
  EarnInvalid: 'The pool refused the request; read its message.',
  EarnPaused: 'The pool has paused withdrawals: creating and claiming are blocked; cancelling still works.',
  EarnUnavailable: 'The pool backend is unavailable. The values shown are the last known; try again shortly.',
  EarnOutcomeUnknown: 'Outcome unknown: the desk reads the pool back to find out. Do not sign again; watch the queue.',
  EarnRejected: 'The pool refused the request; read its message.',
  ClaimAlreadySigned: 'This claim was already signed once; the desk resends the same bytes and never signs a second claim.',
  EarnMalformedResponse: 'The pool answered something unexpected. Try again later; nothing is assumed.',
  EarnDeadlinePassed:
    'The signed claim expired before the pool accepted it. The desk never signs a second claim for the same withdrawal: ' +
    'it reads the withdrawal back to learn what happened. If it is still queued, contact the pool operator.',
})

/** Earn 131004 refusals (the pool reports them by message under one code, earn-api §7). */
const EARN_MESSAGES: readonly (readonly [RegExp, string])[] = [
  [
    /already has an active withdrawal/i,
    'One withdrawal per account and asset: wait for the active one to finish, or cancel it if it is scheduled.',
  ],
  [/insufficient earn balance/i, 'The gross amount exceeds the earn balance. Lower it.'],
  [/below minimum/i, 'The gross amount is below the pool minimum for this asset. Raise it.'],
  [/exceeds maximum/i, 'The gross amount is above the pool maximum for one withdrawal. Split it or lower it.'],
  [/not claimable/i, 'Not claimable yet (before its claimable time) or no longer queued. Wait for the countdown.'],
  [/not cancelable/i, 'It can no longer be cancelled: past its claimable time, or already claimed. Claim it instead.'],
  [/withdrawals are paused/i, 'The pool has paused withdrawals: creating and claiming are blocked; cancelling still works.'],
  [/type is disabled/i, 'That withdrawal type is turned off for this asset. Use the other type.'],
  [/withdrawal not found/i, 'No such withdrawal for this account. Refresh the queue.'],
  [/deadline.*future/i, 'The signed request expired. Try again; the desk signs a fresh one.'],
  [/signer does not match/i, 'The pool recovered another address. Check the network and the account key.'],
]

const UNKNOWN_CODE = 'Read the message above; nothing more is known about this code. The journal keeps the full record.'

/** The table's own advice for `code` (exact, then lowercase as leaf codes arrive), or null. */
export function adviceForCode(code: string | null | undefined): string | null {
  if (!code) return null
  return ADVICE[code] ?? ADVICE[code.toLowerCase()] ?? null
}

/** Every code the table has advice for (tests check it covers the spec's code tables). */
export function adviceCodes(): string[] {
  return Object.keys(ADVICE)
}

/** A sentence for the screen: by the earn message, the code, or a family of codes; never empty. */
export function adviceFor(code: string, message = ''): string {
  for (const [re, advice] of EARN_MESSAGES) if (re.test(message)) return advice
  const direct = adviceForCode(code)
  if (direct) return direct
  if (/timeout|unknown/i.test(code)) return ADVICE.Timeout as string
  if (/locked/i.test(code)) return ADVICE.VaultLocked as string
  return UNKNOWN_CODE
}

/** Codes that close an order without the action failing (trading-api §3 "benign cancel codes"). */
export const BENIGN_CLOSE_CODES: ReadonlySet<string> = new Set([
  'ioccancel',
  'fokcancel',
  'selftradepreventioncancel',
  'marketordernoliquidity',
])
