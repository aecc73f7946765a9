import { describe, expect, it } from 'vitest'
import type { TeamProposalDetail } from '../../../contract/types'
import { reviewLines } from './team-review'

const ACCOUNT = '0x9bf03ccd2aff56759686cd3d9cc634e1d2eaa745'
const COLD = '0x000000000000000000000000000000000000c01d'
const OTHER = '0x00000000000000000000000000000000000bad00'

function detail(review: TeamProposalDetail['review'], custody: TeamProposalDetail['custody'] = null): TeamProposalDetail {
  return { review, custody, names: { [ACCOUNT]: 'Treasury main', [COLD]: 'cold wallet' } } as unknown as TeamProposalDetail
}

describe('desk team show: the review an approver reads first', () => {
  it('an honest proposal: every field once, accounts by the team names, no mark', () => {
    const lines = reviewLines(
      detail([
        { key: 'account', label: 'Account', initiator: ACCOUNT, mine: ACCOUNT, state: 'same' },
        { key: 'amount', label: 'Amount', initiator: '1,250.5 USDC', mine: '1,250.5 USDC', state: 'same' },
        { key: 'destination', label: 'Destination', initiator: COLD, mine: COLD, state: 'same' },
      ]),
    )
    expect(lines[0]).toMatch(/no field differs/)
    expect(lines).toContain(`  Account      Treasury main (${ACCOUNT})`)
    expect(lines).toContain(`  Destination  cold wallet (${COLD})`)
    expect(lines.join('\n')).not.toMatch(/DIFFERS/)
  })

  it('marks exactly the field whose decoding differs, says what the initiator claimed, and an unreadable value is not a difference', () => {
    const lines = reviewLines(
      detail(
        [
          { key: 'amount', label: 'Amount', initiator: '1,250.5 USDC', mine: '1,250.5 USDC', state: 'same' },
          { key: 'destination', label: 'Destination', initiator: COLD, mine: OTHER, state: 'differs' },
          { key: 'usd', label: 'Value (USD)', initiator: '$1,250.00', mine: null, state: 'unreadable' },
        ],
        { threshold: 2, holders: [], mine: true },
      ),
    )
    expect(lines[0]).toBe("review: 1 field(s) differ from the initiator's preview; check them before approving:")
    expect(lines.filter((l) => l.includes('DIFFERS'))).toEqual([
      `  Destination  ${OTHER}  DIFFERS: the initiator's preview says cold wallet (${COLD})`,
    ])
    expect(lines).toContain('  Value (USD)  $1,250.00  (this desk cannot read it; not a difference)')
    expect(lines.at(-1)).toMatch(/approving releases a share for this write from this desk/)
  })
})
