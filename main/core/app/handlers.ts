/**
 * The handler table: one function per contract channel, each a thin adapter from validated
 * arguments to the core services and back to plain contract views. Business rules live in
 * the services; this file only wires and translates.
 */
import { readFile, stat } from 'node:fs/promises'
import type { Address, AgentSlotView, AppState, AssetView, FillView, MarketView, OpenOrderView, PreviewView, SettingsView } from '../../contract/types'
import { networkView } from '../config/networks'
import { DeskError } from '../errors/desk-error'
import type { HandlerTable } from '../ipc/dispatch'
import { formatAtoms, parseDecimal } from '../money/decimal'
import { approveAgent, revokeAgent, rotateAgent } from '../services/agents-write'
import { cancelEarnWithdrawal, claimEarnWithdrawal, createEarnWithdrawal, earnOverview, withdrawalView } from '../services/earn'
import { cancelAllInMarket, cancelOrder, emergencyCancelAll, placeOrder } from '../services/orders'
import { previewRepay, previewSettle, repay, settle } from '../services/settle-repay'
import { activateFor, transfer, withdraw } from '../services/transfers'
import { DEV_OWNER_LABELS, DEV_OWNERS } from '../../../sandbox/scenario/dev-keys'
import type { DeskRuntime } from './runtime'
import { earnOverviewView, earnWithdrawalView, journalFilter as toJournalFilter, submissionView, transferPreviewView, writeOutcomeView } from '../services/write-views'
import { depositView, yieldView } from './views'

/** Keystore files are small JSON documents; anything larger is the wrong file. */
const MAX_KEYSTORE_BYTES = 64 * 1024

function settingsView(rt: DeskRuntime): SettingsView {
  const s = rt.settings.load()
  return { autoLockMinutes: s.autoLockMinutes, passphraseWindowMinutes: s.passphraseWindowMinutes, warningThresholds: s.warningThresholds, theme: s.theme }
}

type ContractFilter = Parameters<typeof toJournalFilter>[0]

/** Journal queries are scoped to the selected network. */
function journalFilter(rt: DeskRuntime, f: ContractFilter) {
  return toJournalFilter({ network: rt.settings.load().selectedNetwork, limit: 1000, ...f, ...(f.account ? { account: f.account.toLowerCase() } : {}) })
}

export function buildHandlers(rt: DeskRuntime): HandlerTable {
  const session = () => rt.session()
  const write = async () => {
    rt.requireUnlocked()
    return (await session()).write()
  }
  const decimalsOf = async (assetId: number) => {
    const md = await (await session()).read.market.get('operator')
    const a = md.assets.get(assetId)
    if (!a) throw new DeskError('UnknownAsset', `asset ${assetId} is not listed on this network`)
    return a.decimals
  }
  const slotsOf = async (owner: string): Promise<AgentSlotView[]> => (await session()).read.agents.slots(owner, 'operator')
  const slotView = async (owner: string, slot: number) => {
    const s = (await slotsOf(owner)).find((x) => x.slot === slot)
    if (!s) throw new DeskError('InvalidAgentSlot', `slot ${slot} not found`)
    return s
  }
  const earnView = async (account: string) => {
    const w = await write()
    const view = earnOverviewView(await earnOverview(w.earnCtx, account), rt.now())
    rt.events.emit('state.earn', view)
    return view
  }
  const earnWithdrawal = async (account: string, operationId: string) => {
    const view = await earnView(account)
    const found = view.withdrawals.find((x) => x.operationId === operationId)
    if (!found) throw new DeskError('WithdrawalNotFound', `withdrawal ${operationId} is not listed for ${account}`)
    return found
  }
  const earnDecimals = async () => {
    const config = await (await write()).earn.config('operator')
    return (assetId: number) => config.assets.find((a) => a.asset_id === assetId)?.balance_decimals ?? 8
  }

  return {
    'app.state': (): AppState => ({
      version: rt.opts.version,
      host: rt.opts.host === 'electron' ? 'electron' : 'web',
      network: networkView(rt.settings.selected()),
      vault: rt.vaultStatus(),
    }),

    // ---- vault ----
    'vault.create': ({ passphrase }) => rt.createVault(passphrase),
    'vault.unlock': async ({ passphrase }) => {
      const status = await rt.unlock(passphrase)
      void rt.session().then((s) => s.reconcileSoon()).catch(() => {})
      return status
    },
    'vault.lock': () => {
      rt.lock('operator')
      return rt.vaultStatus()
    },
    'vault.changePassphrase': async ({ current, next }) => {
      await rt.requireUnlocked().changePassphrase(current, next)
      return rt.vaultStatus()
    },

    // ---- accounts ----
    'accounts.list': () => rt.accountViews(),
    'accounts.generate': async ({ label }) => {
      const address = await rt.requireUnlocked().generateOwnerKey(label || undefined)
      return rt.accountViews().find((a) => a.address === address.toLowerCase())!
    },
    'accounts.watch': async ({ address, label }) => {
      const a = await rt.requireUnlocked().addWatchOnly(address, label || undefined)
      return rt.accountViews().find((x) => x.address === a.toLowerCase())!
    },
    'accounts.importKeystore': async ({ path, passphrase, label }) => {
      const vault = rt.requireUnlocked()
      let text: string
      try {
        const st = await stat(path)
        if (!st.isFile() || st.size > MAX_KEYSTORE_BYTES) throw new DeskError('KeystoreFileInvalid', 'That file is not a keystore (not a small regular file).')
        text = await readFile(path, 'utf8')
      } catch (e) {
        if (e instanceof DeskError) throw e
        throw new DeskError('KeystoreFileUnreadable', `Cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
      }
      const a = await vault.importKeystore(text, passphrase, label || undefined)
      return rt.accountViews().find((x) => x.address === a.toLowerCase())!
    },
    'accounts.importSandboxKeys': async () => {
      if (rt.settings.selected().kind !== 'sandbox') throw new DeskError('NotSandbox', 'Development keys can only be added on the sandbox network.')
      const vault = rt.requireUnlocked()
      const have = new Set(vault.listAccounts().map((a) => a.address.toLowerCase()))
      for (const o of DEV_OWNERS) {
        if (have.has(o.address.toLowerCase())) continue
        await vault.importPrivateKey(o.privateKey, DEV_OWNER_LABELS[o.index] ?? `Sandbox owner ${o.index}`)
      }
      const dev = new Set(DEV_OWNERS.map((o) => o.address.toLowerCase()))
      return rt.accountViews().filter((a) => dev.has(a.address))
    },
    'accounts.update': async ({ address, label, group }) => {
      if (label !== undefined) await rt.requireUnlocked().setLabel(address, label)
      if (group !== undefined) rt.meta.setGroup(address, group)
      const a = rt.accountViews().find((x) => x.address === address.toLowerCase())
      if (!a) throw new DeskError('UnknownAccount', `${address} is not in the vault`)
      return a
    },
    'accounts.remove': async ({ address }) => {
      await rt.requireUnlocked().removeAccount(address)
      return { removed: address.toLowerCase() as Address }
    },

    // ---- networks and settings ----
    'networks.list': () => ({ selected: rt.settings.load().selectedNetwork, networks: rt.settings.networks().map(networkView) }),
    'networks.select': async ({ name }) => {
      const n = rt.settings.network(name)
      await rt.resetSession()
      rt.settings.select(n.name)
      return networkView(n)
    },
    'networks.save': async (a) => {
      const n = rt.settings.saveNetwork({ ...a, network: a.kind === 'custom' ? a.name : a.kind })
      if (rt.settings.load().selectedNetwork === n.name) await rt.resetSession()
      return networkView(n)
    },
    'settings.get': () => settingsView(rt),
    'settings.update': (patch) => {
      const s = rt.settings.update(patch)
      rt.vault?.setAutoLockMs(s.autoLockMinutes * 60_000)
      rt.vault?.setReentryWindowMs(s.passphraseWindowMinutes * 60_000)
      return settingsView(rt)
    },

    // ---- reads ----
    'markets.list': async () => {
      const s = await session()
      const [md, markets] = await Promise.all([s.read.market.get('operator'), s.read.info.markets({ lane: 'operator' })])
      const assets: AssetView[] = [...md.assets.values()].map((a) => ({ assetId: a.assetId, symbol: a.symbol, balanceDecimals: a.decimals, creditLtv: a.creditLtv }))
      const sym = (id: number | undefined) => (id === undefined ? '?' : (md.assets.get(id)?.symbol ?? String(id)))
      const views: MarketView[] = markets.markets.map((m) => ({
        marketId: String(m.market_id),
        symbol: m.symbol ?? `${sym(m.base_asset_id)}/${sym(m.quote_asset_id)}`,
        priceDecimals: m.price_decimals,
        baseQuantityDecimals: m.base_quantity_decimals,
        baseAssetId: m.base_asset_id ?? -1,
        quoteAssetId: m.quote_asset_id ?? -1,
        creditTrading: m.credit_trading,
      }))
      return { markets: views, assets }
    },
    'portfolio.overview': () => rt.overview('operator'),
    'account.detail': async ({ address }) => {
      const s = await session()
      const ref = rt.accountRefs().find((r) => r.address === address.toLowerCase()) ?? { address: address.toLowerCase() as Address, label: '', group: '', hasKey: false }
      const { row, credit } = await s.read.portfolio.row(ref, 'operator')
      rt.rememberIdentity(ref.address, row.account)
      const balances = await s.read.portfolio.balances(ref.address, 'operator')
      const oo = await s.read.info.openOrders({ user: ref.address, market_id: -1 }, { lane: 'operator' })
      const fills = await s.read.info.userFillsByTime({ user: ref.address, start_time_ms: Math.max(0, rt.now() - 24 * 3600_000) }, { lane: 'operator' })
      const openOrders: OpenOrderView[] = oo.orders.map((o) => ({
        marketId: String(o.market_id ?? ''),
        oid: String(o.oid),
        cloid: o.cloid ?? null,
        side: o.side === 'ask' || o.side === 'A' ? 'ask' : 'bid',
        price: o.price ?? '',
        originalQty: o.original_qty,
        remainingQty: o.remaining_qty,
        filledQty: o.filled_qty,
        timeMs: o.timestamp_ms ?? null,
      }))
      const fillViews: FillView[] = fills.fills
        .slice(-200)
        .reverse()
        .map((f) => ({
          tid: String(f.tid),
          marketId: String(f.market_id ?? f.coin ?? ''),
          side: f.side,
          price: f.price ?? f.px ?? '',
          size: f.quantity ?? f.sz ?? '',
          fee: f.fee,
          feeAssetId: f.fee_asset_id,
          timeMs: f.time,
          oid: f.oid === null || f.oid === undefined ? null : String(f.oid),
          cloid: f.cloid ?? null,
        }))
      const view = { account: row.account, balances: balances.rows, credit, openOrders: openOrders, fills: fillViews, fetchedAt: balances.fetchedAt }
      rt.events.emit('state.account', view)
      return view
    },
    'credit.health': async ({ address }) => {
      const h = await (await session()).read.credit.health(address, 'operator')
      if (!h) throw new DeskError('NotCreditAccount', `${address} has no credit line.`)
      return h
    },
    'credit.history': async ({ address, sinceMs }) => (await session()).read.credit.history(address, sinceMs),

    // ---- agents ----
    'agents.list': ({ owner }) => slotsOf(owner),
    'agents.approve': async ({ owner, slot }) => {
      const w = await write()
      await approveAgent(w.ctx, { owner, slot })
      return slotView(owner, slot)
    },
    'agents.revoke': async ({ owner, slot }) => {
      const w = await write()
      await revokeAgent(w.ctx, { owner, slot })
      return slotView(owner, slot)
    },
    'agents.rotate': async ({ owner, slot }) => {
      const w = await write()
      const r = await rotateAgent(w.ctx, { owner, slot })
      const steps = [
        { step: 'generate' as const, status: 'done' as const, detail: `new key ${r.to.agent} generated in the vault` },
        { step: 'approve' as const, status: 'done' as const, detail: `approved into slot ${r.to.slot} (${r.to.outcome.state})` },
        { step: 'verify-epoch' as const, status: 'done' as const, detail: `userAgents shows epoch ${r.to.epoch}` },
        { step: 'switch-signer' as const, status: 'done' as const, detail: `trading now signs with slot ${r.to.slot}` },
        r.inPlace
          ? { step: 'retire-old-key' as const, status: 'skipped' as const, detail: 'no free slot: the key was replaced in place' }
          : { step: 'retire-old-key' as const, status: r.revoke ? ('done' as const) : ('skipped' as const), detail: r.revoke ? `slot ${r.from.slot} revoked, old key ${r.from.agent ?? '(none)'} retired` : 'the old slot was empty' },
      ]
      return { slot: await slotView(owner, r.to.slot), steps }
    },

    // ---- settle, repay, transfers ----
    'settle.preview': async (a) => {
      const w = await write()
      return transferPreviewView(await previewSettle(w.ctx, { from: a.creditAccount, to: a.cashAccount, asset: a.assetId, amount: a.amount }), w.network.name)
    },
    'settle.submit': async (a) => {
      const w = await write()
      const r = await settle(w.ctx, { from: a.creditAccount, to: a.cashAccount, asset: a.assetId, amount: a.amount })
      return writeOutcomeView(rt.journal, r.outcome)
    },
    'repay.preview': async (a) => {
      const w = await write()
      return transferPreviewView(await previewRepay(w.ctx, { from: a.cashAccount, to: a.creditAccount, asset: a.assetId, amount: a.amount }), w.network.name)
    },
    'repay.submit': async (a) => {
      const w = await write()
      const r = await repay(w.ctx, { from: a.cashAccount, to: a.creditAccount, asset: a.assetId, amount: a.amount })
      return writeOutcomeView(rt.journal, r.outcome)
    },
    'transfer.preview': async (a): Promise<PreviewView> => {
      const s = await session()
      const decimals = await decimalsOf(a.assetId)
      const amount = parseDecimal(a.amount, decimals)
      const md = await s.read.market.get('operator')
      const symbol = md.assets.get(a.assetId)?.symbol ?? String(a.assetId)
      const bal = async (acct: string) => {
        const r = (await s.read.portfolio.balances(acct, 'operator')).rows.find((b) => b.assetId === a.assetId)
        return r ? parseDecimal(r.available, decimals) : 0n
      }
      const [from, to] = await Promise.all([bal(a.from), bal(a.to)])
      const f = (x: bigint) => formatAtoms(x, decimals)
      return {
        title: `Transfer ${a.amount} ${symbol}`,
        summary: [`Network: ${s.name}`, `From ${rt.label(a.from)} ${a.from} (owner key)`, `To ${rt.label(a.to)} ${a.to}`, `Amount: ${a.amount} ${symbol} (${amount} atoms)`],
        action: { type: 'transfer', to: a.to, asset_id: String(a.assetId), amount: amount.toString(), cloid: '(new, assigned when signed)' },
        effects: [
          { account: a.from as Address, label: `${rt.label(a.from)} available`, assetSymbol: symbol, before: f(from), after: f(from - amount) },
          { account: a.to as Address, label: `${rt.label(a.to)} available`, assetSymbol: symbol, before: f(to), after: f(to + amount) },
        ],
        warnings: from < amount ? [`${rt.label(a.from) || a.from} has only ${f(from)} ${symbol} available: the service will refuse with InsufficientSpotBalance.`] : [],
      }
    },
    'transfer.submit': async (a) => {
      const w = await write()
      const r = await transfer(w.ctx, { from: a.from, to: a.to, asset: a.assetId, amount: a.amount })
      return writeOutcomeView(rt.journal, r.outcome)
    },
    'withdraw.submit': async (a) => {
      const w = await write()
      const r = await withdraw(w.ctx, { account: a.account, asset: a.assetId, amount: a.amount, dstChainId: a.dstChainId, dstAddress: a.dstAddress })
      return writeOutcomeView(rt.journal, r.outcome)
    },
    'activate.submit': async (a) => {
      const w = await write()
      const r = await activateFor(w.ctx, { from: a.account, target: a.target, asset: a.feeAssetId })
      return writeOutcomeView(rt.journal, r.outcome)
    },

    // ---- orders ----
    'orders.place': async (a) => {
      const w = await write()
      const r = await placeOrder(w.ctx, { account: a.account, market: a.marketId, side: a.side, orderType: a.orderType, tif: a.tif, price: a.price, quantity: a.quantity })
      return writeOutcomeView(rt.journal, r.outcome, r.leaves)
    },
    'orders.cancel': async (a) => {
      const w = await write()
      const r = await cancelOrder(w.ctx, { account: a.account, market: a.marketId, oid: a.oid })
      return writeOutcomeView(rt.journal, r.outcome, r.leaves)
    },
    'orders.cancelAll': async (a) => {
      const w = await write()
      const r = await cancelAllInMarket(w.ctx, { account: a.account, market: a.marketId })
      return writeOutcomeView(rt.journal, r.outcome, r.leaves)
    },
    'orders.cancelEverything': async ({ account }) => {
      const w = await write()
      const r = await emergencyCancelAll(w.ctx, { account })
      if (r.failures.length > 0 && r.writes.length === 0) {
        const f = r.failures[0]!
        throw new DeskError(f.code, `${f.message} (markets ${r.failures.flatMap((x) => x.markets).join(', ')}); retry to cancel the rest`)
      }
      return r.writes.map((x) => writeOutcomeView(rt.journal, x.outcome, x.leaves))
    },

    // ---- earn ----
    'earn.overview': ({ account }) => earnView(account),
    'earn.withdrawals': async ({ account, assetId, beforeId, limit }) => {
      const w = await write()
      const config = await w.earn.config('operator')
      const page = await w.earn.withdrawalsPage(account, { ...(assetId !== undefined ? { assetId } : {}), ...(beforeId ? { beforeId } : {}), ...(limit ? { limit } : {}) })
      const items = page.items.map((rec) => earnWithdrawalView(withdrawalView(rec, config.assets, rt.now(), config.withdrawal_paused)))
      return { items, nextBeforeId: page.next_before_id === null ? null : String(page.next_before_id) }
    },
    'earn.deposits': async ({ account, assetId, beforeId, limit }) => {
      const w = await write()
      const dec = await earnDecimals()
      const page = await w.earn.depositsPage(account, { ...(assetId !== undefined ? { assetId } : {}), ...(beforeId ? { beforeId } : {}), ...(limit ? { limit } : {}) })
      return { items: page.items.map((d) => depositView(d, dec)), nextBeforeId: page.next_before_id === null ? null : String(page.next_before_id) }
    },
    'earn.yield': async ({ account, assetId, beforeId, limit }) => {
      const w = await write()
      const dec = await earnDecimals()
      const page = await w.earn.yieldPage(account, { ...(assetId !== undefined ? { assetId } : {}), ...(beforeId ? { beforeId } : {}), ...(limit ? { limit } : {}) })
      return { items: page.items.map((y) => yieldView(y, dec)), nextBeforeId: page.next_before_id === null ? null : String(page.next_before_id) }
    },
    'earn.create': async ({ account, assetId, amount, type }) => {
      const w = await write()
      const r = await createEarnWithdrawal(w.earnCtx, { user: account, asset: assetId, amount, type })
      return earnWithdrawal(account, r.operationId)
    },
    'earn.claim': async ({ account, operationId }) => {
      const w = await write()
      await claimEarnWithdrawal(w.earnCtx, { user: account, operationId })
      return earnWithdrawal(account, operationId)
    },
    'earn.cancel': async ({ account, operationId }) => {
      const w = await write()
      await cancelEarnWithdrawal(w.earnCtx, { user: account, operationId })
      return earnWithdrawal(account, operationId)
    },

    // ---- journal ----
    'journal.query': (f) => rt.journal.list(journalFilter(rt, f)).map((s) => submissionView(rt.journal, s)),
    'journal.export': ({ format, filter }) => {
      const stamp = new Date(rt.now()).toISOString().replace(/[:.]/g, '-')
      return {
        filename: `treasury-desk-journal-${stamp}.${format}`,
        mime: format === 'csv' ? 'text/csv' : 'application/json',
        content: rt.journal.export(journalFilter(rt, filter), format),
      }
    },
    'journal.get': ({ cloid }) => {
      const s = rt.journal.findByKey(rt.settings.load().selectedNetwork, cloid)
      if (!s) throw new DeskError('NotInJournal', `no journal entry for ${cloid} on this network`)
      return submissionView(rt.journal, s)
    },

    // ---- host ----
    'confirm.respond': ({ id, approved, passphrase }) => ({ accepted: rt.confirm.respond(id, approved ? { approved, ...(passphrase !== undefined ? { passphrase } : {}) } : { approved: false }) }),
    'dialog.openFile': async ({ purpose }) => ({ path: await rt.opts.services.openFile(purpose) }),
    'shell.openExternal': async ({ url }) => ({ opened: await rt.opts.services.openExternal(url) }),
  }
}
