import { defineStore } from 'pinia'
import type { ChannelArgs } from '../../../../main/contract/channels'
import type { OrderPreviewView, WriteOutcome } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

/** Placing and cancelling orders; each write's outcome is followed by the journal. */
export const useOrdersStore = defineStore('orders', () => {
  const place = (args: ChannelArgs<'orders.place'>): Promise<WriteOutcome> => call('orders.place', args)
  const cancel = (args: ChannelArgs<'orders.cancel'>): Promise<WriteOutcome> => call('orders.cancel', args)
  const cancelAll = (args: ChannelArgs<'orders.cancelAll'>): Promise<WriteOutcome> => call('orders.cancelAll', args)
  const cancelEverything = (args: ChannelArgs<'orders.cancelEverything'>): Promise<WriteOutcome[]> => call('orders.cancelEverything', args)
  const preview = (args: ChannelArgs<'orders.preview'>): Promise<OrderPreviewView> => call('orders.preview', args)
  return { place, cancel, cancelAll, cancelEverything, preview }
})
