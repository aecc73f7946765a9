import { describe, expect, it } from 'vitest'
import { adviceFor, adviceForCode, BENIGN_CLOSE_CODES } from './advice'

/**
 * The codes the desk can surface, copied from the spec's code tables (trading-api.md §3 order
 * states and benign cancels, §4 /trade leaf codes, timeout handling and each action's errors,
 * §7 /info and /trade; earn-api.md §7 numeric codes as the journal keeps them).
 */
const SPEC_CODES = {
  tradeTable: [
    'RateLimited',
    'TooManyPending',
    'PlaceOrderSuspended',
    'Unavailable',
    'NodeUnreachable',
    'ExpiredTx',
    'QueryLagBackpressure',
    'RequestTooLarge',
  ],
  rejected: [
    'InvalidJson',
    'AmbiguousAuthFields',
    'SignaturesNotAllowedForAction',
    'InvalidQuantityPrecision',
    'EncodeLengthOverflow',
    'MissingOidOrCloid',
    'WrongChainId',
    'DirectSignerIsActiveAgent',
    'AgentEpochMismatch',
    'UnknownAgent',
    'InsufficientSpotBalance',
    'MinTradeSpotNtl',
  ],
  envelopeExecution: ['BadNonce', 'BadSignature', 'ExpiredTx', 'MalformedTx', 'InvalidBatchLength', 'FeatureDisabled'],
  actions: [
    'ActionNotAllowedForSpotCreditAccount',
    'AccountNotFound',
    'TransferToSelf',
    'InvalidTransfer',
    'InsufficientSpotBalance',
    'InvalidActivationFeeAsset',
    'AccountAlreadyActivated',
    'AddressIsAgent',
    'InvalidAccountActivation',
    'WithdrawDuplicateNonce',
    'MissingCloid',
    'InvalidCloid',
    'InvalidCashAccount',
    'InvalidAssetId',
    'InvalidSettle',
    'SpotCreditAccountFrozen',
    'OracleMarkPriceMissing',
    'InsufficientSpotCredit',
    'InvalidMarginAccount',
    'InvalidRepay',
    'InvalidAgentSlot',
    'InvalidAgent',
    'LegacySignatureNotAccepted',
    'Eip712AgentEpochNotAllowed',
  ],
  leaves: [
    'insufficientspotbalance',
    'mintradespotntl',
    'tick',
    'lotsize',
    'badalopx',
    'missingorder',
    'marketnotfound',
    'accountopenorderlimit',
    'maxfillsexceeded',
    'ioccancel',
    'fokcancel',
    'selftradepreventioncancel',
    'marketordernoliquidity',
    'insufficientspotcredit',
    'invalidsettle',
    'invalidrepay',
  ],
  txStatus: ['failed'],
  info: [
    'InvalidInfoRequest',
    'UnsupportedInfoType',
    'InvalidMultisigScope',
    'InvalidFillsQuery',
    'HistoryWindowExceeded',
    'InvalidOrderStatusQuery',
    'InvalidMarketId',
    'InvalidCloid',
    'RateLimited',
  ],
  earn: ['131002', '131004', '131006', '201005'],
}

describe('the advice table', () => {
  it('has advice for every error code of the spec the desk can surface', () => {
    const missing = Object.entries(SPEC_CODES).flatMap(([table, codes]) =>
      codes.filter((c) => adviceForCode(c) === null).map((c) => `${table}: ${c}`),
    )
    expect(missing).toEqual([])
  })

  it('says a benign close (fill-or-kill, IOC, self-trade, no liquidity) may have traded, as the spec does', () => {
    for (const code of BENIGN_CLOSE_CODES)
      expect(adviceForCode(code), code).toMatch(/may (still )?have traded|fills before that point are real/)
    expect(adviceFor('fokcancel')).not.toMatch(/nothing traded/i)
  })
})
