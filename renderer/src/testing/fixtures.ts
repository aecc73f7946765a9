import type { AccountView, AppState, AssetView, SubmissionView } from '../../../main/contract/types'

export const CREDIT = '0x1111111111111111111111111111111111111111' as const
export const CASH = '0x2222222222222222222222222222222222222222' as const

export function appState(over: Partial<AppState> = {}): AppState {
  return {
    version: '0.1.0',
    host: 'web',
    network: {
      name: 'sandbox',
      kind: 'sandbox',
      chainId: 424242,
      tradingUrl: 'http://127.0.0.1:1',
      wsUrl: 'ws://127.0.0.1:1',
      earnUrl: 'http://127.0.0.1:1',
      infoRatePerSec: 1,
      tradeRatePerSec: 1,
      strictLimits: true,
      configured: true,
    },
    vault: { exists: true, unlocked: true, lastPassphraseAt: 1, autoLockMinutes: 15 },
    ...over,
  }
}

export function account(address: `0x${string}`, kind: AccountView['kind'], label: string, hasKey = true): AccountView {
  return { address, label, group: '', hasKey, kind, status: 'active', accountIndex: null }
}

export const ASSETS: AssetView[] = [
  { assetId: 1, symbol: 'USDC', balanceDecimals: 6, creditLtv: 1 },
  { assetId: 2, symbol: 'BTC', balanceDecimals: 8, creditLtv: 0.8 },
]

export function submission(over: Partial<SubmissionView> = {}): SubmissionView {
  return {
    id: '1',
    cloid: '0x0123456789abcdef0123456789abcdef',
    network: 'sandbox',
    account: CREDIT,
    signer: CREDIT,
    actionType: 'settle',
    summary: 'settle 1.5 USDC to cash',
    nonce: '1700000000000',
    state: 'sent',
    outcome: 'pending',
    code: null,
    finalStatus: null,
    advice: null,
    evidence: null,
    acknowledgedAt: null,
    txHash: null,
    traceId: null,
    createdAt: 1000,
    updatedAt: 1000,
    history: [{ state: 'sent', code: null, atMs: 1000, note: null }],
    ...over,
  }
}
