import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { EarnDepositView, EarnOverviewView, EarnWithdrawalView, EarnYieldView } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

const PAGE = 20

/** Earn pool state of the account on screen, its queue and paged history. */
export const useEarnStore = defineStore('earn', () => {
  const account = ref<`0x${string}` | null>(null)
  const overview = shallowRef<EarnOverviewView | null>(null)
  const error = ref<unknown>(null)
  const deposits = ref<EarnDepositView[]>([])
  const depositsNext = ref<string | null>(null)
  const yields = ref<EarnYieldView[]>([])
  const yieldsNext = ref<string | null>(null)
  const history = ref<EarnWithdrawalView[]>([])
  const historyNext = ref<string | null>(null)

  async function load(addr: `0x${string}`): Promise<void> {
    if (account.value !== addr) historyLoaded = false
    account.value = addr
    try {
      overview.value = await call('earn.overview', { account: addr })
      error.value = null
    } catch (e) {
      error.value = e
    }
  }

  let historyLoaded = false
  async function loadHistory(): Promise<void> {
    if (!account.value) return
    historyLoaded = true
    const [d, y, w] = await Promise.all([
      call('earn.deposits', { account: account.value, limit: PAGE }),
      call('earn.yield', { account: account.value, limit: PAGE }),
      call('earn.withdrawals', { account: account.value, limit: PAGE }),
    ])
    deposits.value = d.items
    depositsNext.value = d.nextBeforeId
    yields.value = y.items
    yieldsNext.value = y.nextBeforeId
    history.value = w.items
    historyNext.value = w.nextBeforeId
  }

  async function moreDeposits(): Promise<void> {
    if (!account.value || !depositsNext.value) return
    const d = await call('earn.deposits', { account: account.value, beforeId: depositsNext.value, limit: PAGE })
    deposits.value = [...deposits.value, ...d.items]
    depositsNext.value = d.nextBeforeId
  }
  async function moreYields(): Promise<void> {
    if (!account.value || !yieldsNext.value) return
    const y = await call('earn.yield', { account: account.value, beforeId: yieldsNext.value, limit: PAGE })
    yields.value = [...yields.value, ...y.items]
    yieldsNext.value = y.nextBeforeId
  }
  async function moreHistory(): Promise<void> {
    if (!account.value || !historyNext.value) return
    const w = await call('earn.withdrawals', { account: account.value, beforeId: historyNext.value, limit: PAGE })
    history.value = [...history.value, ...w.items]
    historyNext.value = w.nextBeforeId
  }

  let historyTimer: ReturnType<typeof setTimeout> | null = null
  /** A pushed overview: the queue is replaced; the history, once shown, follows when a withdrawal or a balance moved. */
  function apply(o: EarnOverviewView): void {
    if (!account.value || o.address.toLowerCase() !== account.value.toLowerCase()) return
    const moved = withdrawalsKey(overview.value) !== withdrawalsKey(o)
    overview.value = o
    if (moved && historyLoaded && !historyTimer) {
      historyTimer = setTimeout(() => {
        historyTimer = null
        loadHistory().catch(() => {})
      }, 250)
    }
  }

  function upsertWithdrawal(w: EarnWithdrawalView): void {
    if (!overview.value) return
    const list = overview.value.withdrawals.filter((x) => x.operationId !== w.operationId)
    overview.value = { ...overview.value, withdrawals: [w, ...list] }
  }

  async function create(assetId: number, amount: string, type: 'scheduled' | 'instant'): Promise<EarnWithdrawalView> {
    if (!account.value) throw new Error('no account selected')
    const w = await call('earn.create', { account: account.value, assetId, amount, type })
    upsertWithdrawal(w)
    return w
  }
  async function claim(operationId: string): Promise<EarnWithdrawalView> {
    if (!account.value) throw new Error('no account selected')
    const w = await call('earn.claim', { account: account.value, operationId })
    upsertWithdrawal(w)
    return w
  }
  async function cancel(operationId: string): Promise<EarnWithdrawalView> {
    if (!account.value) throw new Error('no account selected')
    const w = await call('earn.cancel', { account: account.value, operationId })
    upsertWithdrawal(w)
    return w
  }

  return {
    account,
    overview,
    error,
    deposits,
    depositsNext,
    yields,
    yieldsNext,
    history,
    historyNext,
    load,
    loadHistory,
    moreDeposits,
    moreYields,
    moreHistory,
    apply,
    create,
    claim,
    cancel,
  }
})

function withdrawalsKey(o: EarnOverviewView | null): string {
  // Balances too: a deposit or a yield payment moves them, and the deposit and yield pages follow.
  return o
    ? [
        ...o.withdrawals.map((w) => `${w.operationId}:${w.status}`),
        ...o.assets.map((a) => `${a.assetId}:${a.earnBalance}:${a.inQueueBalance}:${a.withdrawLockedBalance}`),
      ].join('|')
    : ''
}
