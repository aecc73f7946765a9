import { h, type VNodeChild } from 'vue'
import { RouterLink } from 'vue-router'
import type { OverviewRow, StreamStatus, WarningLevel } from '../../../../../main/contract/types'
import { shortAddress } from '../../../../../main/contract/format'
import AgeText from '../../../shared/components/AgeText.vue'
import Amount from '../../../shared/components/Amount.vue'
import { accountStatusText } from '../../../shared/utils/account-status'
import { compareDecimal } from '../../../shared/utils/decimal'
import { rowFreshness } from '../freshness'

/** One column of the accounts table: its header, width and how a row's cell renders. */
export interface Column {
  title: string
  key: string
  width: number
  align?: 'right'
  fixed?: 'left'
  render: (r: OverviewRow) => VNodeChild
}

type TagType = 'success' | 'info' | 'warning' | 'error' | 'default'
const warningType: Record<WarningLevel, TagType> = {
  ok: 'success',
  watch: 'info',
  warning: 'warning',
  critical: 'error',
  frozen: 'error',
  unknown: 'default',
}

function balancesCell(r: OverviewRow, field: 'available' | 'locked') {
  if (r.available.length === 0)
    return h('span', { class: 'muted' }, r.readError ? `unknown: ${r.readError}` : r.fetchedAt === null ? 'unknown: not read yet' : '—')
  const shown = r.available.filter((b) => field === 'available' || compareDecimal(b.locked, '0') !== 0)
  // Known balances with nothing locked: a real zero, not a missing value.
  if (shown.length === 0) return h('span', { class: 'muted' }, '0')
  return h(
    'div',
    { class: 'bal' },
    // A reading: at the asset's display precision, the exact amount on hover.
    shown.map((b) => h('div', null, [h(Amount, { value: b[field], symbol: b.symbol, stale: r.stale, display: true })])),
  )
}

/** A small tag (account status, credit warning): a styled span, not a component per cell. */
const tag = (type: TagType, text: string) => h('span', { class: ['state-tag', type] }, text)

/** An address the exchange does not know yet has no type: it is "not activated", not unknown. */
function typeText(r: OverviewRow): string {
  const kind =
    r.account.status === 'none' ? 'not activated' : r.account.kind === 'unknown' && r.fetchedAt === null ? 'not read yet' : r.account.kind
  return `${kind}${r.account.hasKey ? '' : ' (watch)'}`
}

const statusType = (r: OverviewRow): TagType =>
  r.account.status === 'frozen' ? 'error' : r.account.status === 'active' ? 'success' : r.account.status === 'none' ? 'warning' : 'default'

/**
 * The accounts table's columns, with widths that fit the screen at 1280 px (about 1240 px for
 * the table; the group column takes room from the account's): the table never scrolls sideways,
 * and every header's words fit its cell whole (headers wrap between words, never inside one).
 * `stream`: the stream's state when a cell renders (a row reads 'live' only while it streams).
 */
export function accountColumns(groupBy: string, stream: () => StreamStatus | null): Column[] {
  return [
    {
      title: 'Account',
      key: 'label',
      width: groupBy === 'group' ? 170 : 220,
      fixed: 'left',
      render: (r) =>
        h('div', { class: 'acct' }, [
          h(
            RouterLink,
            { to: `/account/${r.account.address}`, 'aria-label': `Open account ${r.account.label || r.account.address}` },
            () => r.account.label || 'unnamed',
          ),
          h('span', { class: 'mono addr', title: r.account.address }, shortAddress(r.account.address)),
        ]),
    },
    ...(groupBy === 'group' ? [{ title: 'Group', key: 'group', width: 90, render: (r: OverviewRow) => r.account.group || '—' }] : []),
    { title: 'Type', key: 'kind', width: 90, render: typeText },
    { title: 'Status', key: 'status', width: 100, render: (r) => tag(statusType(r), accountStatusText(r.account.status)) },
    {
      title: 'Total USD',
      key: 'totalUsd',
      width: 120,
      align: 'right',
      render: (r) => h(Amount, { value: r.totalUsd, usd: true, stale: r.stale, ...(r.totalUsdReason ? { reason: r.totalUsdReason } : {}) }),
    },
    { title: 'Available', key: 'available', width: 150, align: 'right', render: (r) => balancesCell(r, 'available') },
    { title: 'Locked', key: 'locked', width: 120, align: 'right', render: (r) => balancesCell(r, 'locked') },
    {
      title: 'Credit health',
      key: 'credit',
      width: 160,
      render: (r) =>
        r.credit
          ? h('div', null, [
              tag(warningType[r.credit.warning], r.credit.warning),
              ' ',
              h(Amount, { value: r.credit.availableUsd, usd: true, stale: r.stale, ...(r.creditReason ? { reason: r.creditReason } : {}) }),
              ' ',
              h(
                RouterLink,
                {
                  to: `/credit/${r.account.address}`,
                  class: 'small',
                  'aria-label': `details: credit health of ${r.account.label || r.account.address}`,
                },
                () => 'details',
              ),
            ])
          : h('span', { class: 'muted' }, '—'),
    },
    {
      title: 'Agents',
      key: 'agentsInUse',
      width: 66,
      align: 'right',
      render: (r) =>
        h(
          RouterLink,
          { to: `/agents/${r.account.address}`, 'aria-label': `${r.agentsInUse}/4 agents of ${r.account.label || r.account.address}` },
          () => `${r.agentsInUse}/4`,
        ),
    },
    {
      title: 'Pending',
      key: 'pendingJournal',
      width: 80,
      align: 'right',
      render: (r) => h('span', { class: r.pendingJournal > 0 ? 'pending' : '' }, String(r.pendingJournal)),
    },
    {
      title: 'Data age',
      key: 'fetchedAt',
      width: 100,
      // 'live' only for a channel streaming now on a connected stream (main's `source`); otherwise the age as read.
      render: (r) => {
        const f = rowFreshness(r, stream())
        return f === 'live'
          ? h('span', { class: 'live', title: 'streaming now' }, 'live')
          : h('span', null, [
              h(AgeText, { at: r.fetchedAt, stale: r.stale }),
              f === 'in-turn' ? h('span', { class: 'small muted' }, ' · in turn') : null,
            ])
      },
    },
  ]
}
