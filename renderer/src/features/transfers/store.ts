import { defineStore } from 'pinia'
import type { ChannelArgs } from '../../../../main/contract/channels'
import type { PreviewView, WriteOutcome } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

/** Moving funds: transfer (previewed first), withdrawal, account activation. */
export const useTransfersStore = defineStore('transfers', () => {
  const previewTransfer = (args: ChannelArgs<'transfer.preview'>): Promise<PreviewView> => call('transfer.preview', args)
  const submitTransfer = (args: ChannelArgs<'transfer.submit'>): Promise<WriteOutcome> => call('transfer.submit', args)
  const previewWithdraw = (args: ChannelArgs<'withdraw.preview'>): Promise<PreviewView> => call('withdraw.preview', args)
  const withdraw = (args: ChannelArgs<'withdraw.submit'>): Promise<WriteOutcome> => call('withdraw.submit', args)
  const activate = (args: ChannelArgs<'activate.submit'>): Promise<WriteOutcome> => call('activate.submit', args)
  return { previewTransfer, submitTransfer, previewWithdraw, withdraw, activate }
})
