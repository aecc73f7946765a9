import { defineStore } from 'pinia'
import type { ChannelArgs } from '../../../../main/contract/channels'
import type { AccountDetailView, Address, PreviewView, WriteOutcome } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

export type SettleMode = 'settle' | 'repay'
export type SettleArgs = ChannelArgs<'settle.preview'> & ChannelArgs<'repay.preview'>

/** Settle or repay credit: preview exactly what will be signed, then submit it. */
export const useSettleStore = defineStore('settleRepay', () => {
  const preview = (mode: SettleMode, args: SettleArgs): Promise<PreviewView> =>
    call(mode === 'settle' ? 'settle.preview' : 'repay.preview', args)
  const submit = (mode: SettleMode, args: SettleArgs): Promise<WriteOutcome> =>
    call(mode === 'settle' ? 'settle.submit' : 'repay.submit', args)
  /** Both accounts as they are after the write (the "after" the operator checks against the preview). */
  const accountsAfter = (credit: Address, cash: Address): Promise<[AccountDetailView, AccountDetailView]> =>
    Promise.all([call('account.detail', { address: credit }), call('account.detail', { address: cash })])
  return { preview, submit, accountsAfter }
})
