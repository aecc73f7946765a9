/** The desk's read channels still to be moved onto the app's: order ticket check, earn preview. */
import type { HandlerTable } from '../../ipc/dispatch'
import { previewCreateWithdrawal } from '../earn'
import { checkOrderTicket } from '../orders'
import { sessionFor, type CliDeps } from './cli-deps'
import { orderTicket } from './requests'

export type CliReadChannels = 'cli.orders.check' | 'cli.earn.preview'

export function cliReadHandlers(d: CliDeps): Pick<HandlerTable, CliReadChannels> {
  return {
    'cli.orders.check': async (a) => checkOrderTicket((await sessionFor(d, a.network)).write().ctx, orderTicket(a)),
    'cli.earn.preview': async ({ network, user, asset, amount, type }) => previewCreateWithdrawal((await sessionFor(d, network)).write().earnCtx, { user, asset, amount, type }),
  }
}
