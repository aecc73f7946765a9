import { describe, expect, it } from 'vitest'
import type { ConfirmRequest } from '../../contract/types'
import { confirmationText } from './context'

const OWNER = '0x1234567890abcdef1234567890abcdef12345678' as const
const AGENT = '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd' as const
const base: ConfirmRequest = {
  id: 'c1',
  title: 'Transfer 10 USDC',
  summary: ['network sandbox', 'amount 10 USDC'],
  needsPassphrase: false,
  expiresAt: 0,
  origin: 'cli',
}

describe('desk confirmation prompt', () => {
  it('names the owner key that signs, by name and short address, with the full address', () => {
    const text = confirmationText({ ...base, details: { signer: { role: 'owner', label: 'Treasury main', address: OWNER, owner: OWNER } } })
    expect(text).toBe(
      `== Transfer 10 USDC ==\n  network sandbox\n  amount 10 USDC\n  signed by: Treasury main (0x1234…5678), owner key (${OWNER})\n`,
    )
  })

  it('names an agent key with its slot and the owner it acts for', () => {
    const text = confirmationText({
      ...base,
      details: { signer: { role: 'agent', slot: 2, label: 'API key slot 2', address: AGENT, owner: OWNER } },
    })
    expect(text).toContain(`signed by: API key slot 2 (0xabcd…abcd), agent key in slot 2 of 0x1234…5678 (${AGENT})`)
  })

  it("shows main's summary alone when main named no signer", () => {
    expect(confirmationText(base)).toBe('== Transfer 10 USDC ==\n  network sandbox\n  amount 10 USDC\n')
  })
})
