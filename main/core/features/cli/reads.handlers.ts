/** The desk's read channels: status, credit, agent slots, open orders, checks and previews. */
import type { Address } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import { creditFor } from '../credit'
import { previewCreateWithdrawal } from '../earn'
import { pendingCounter } from '../journal'
import { checkOrderTicket } from '../orders'
import { portfolioFor } from '../portfolio'
import { sessionFor, type CliDeps } from './cli-deps'
import { orderTicket } from './requests'

export type CliReadChannels =
  | 'cli.status.show'
  | 'cli.status.credit'
  | 'cli.orders.check'
  | 'cli.earn.preview'

/** The vault's accounts (no passphrase needed to list them). */
function vaultAccounts(d: CliDeps) {
  return d.vault.current?.listAccounts() ?? []
}

export function cliReadHandlers(d: CliDeps): Pick<HandlerTable, CliReadChannels> {
  const pendingJournal = pendingCounter(d.journal)
  return {
    'cli.status.show': async ({ network, addresses }) => {
      const refs = vaultAccounts(d).map((a) => ({ address: a.address.toLowerCase() as Address, label: a.label, group: '', hasKey: !a.watchOnly }))
      const only = addressesLower(addresses)
      const chosen = only ? only.map((a) => refs.find((r) => r.address === a) ?? { address: a, label: '', group: '', hasKey: false }) : refs
      const s = await sessionFor(d, network)
      const o = await portfolioFor(s, { settings: d.settings, pendingJournal }).overview(chosen, 'operator')
      return { network: s.network.name, ...o }
    },
    'cli.status.credit': async ({ network, address }) => {
      const s = await sessionFor(d, network)
      const h = await creditFor(s, d.settings).health(address, 'operator')
      if (!h) throw new DeskError('NotCreditAccount', `${address.toLowerCase()} has no credit line on ${s.network.name}`)
      return h
    },
    'cli.orders.check': async (a) => checkOrderTicket((await sessionFor(d, a.network)).write().ctx, orderTicket(a)),
    'cli.earn.preview': async ({ network, user, asset, amount, type }) => previewCreateWithdrawal((await sessionFor(d, network)).write().earnCtx, { user, asset, amount, type }),
  }
}

function addressesLower(list: readonly string[] | undefined): Address[] | undefined {
  return list?.map((a) => a.toLowerCase() as Address)
}
