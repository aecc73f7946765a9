import { describe, expect, it, vi } from 'vitest'
import { SigningPolicy, type ConfirmationRequest, type Confirmer } from './signing-policy'

const intent = { action: 'settle' as const, title: 'Settle 1.5 USDC', summary: ['From: credit A', 'To: cash B', 'Amount: 1.5 USDC'] }

function setup(answers: Array<{ approved: boolean; passphrase?: string }>) {
  let t = 1_000_000
  const requests: ConfirmationRequest[] = []
  const confirmer: Confirmer = { confirm: async (r) => (requests.push(r), answers.shift() ?? { approved: false }) }
  const verify = vi.fn(async (p: string) => p === 'the right passphrase')
  const policy = new SigningPolicy({ reentryWindowMs: 60_000, now: () => t, verifyPassphrase: verify })
  policy.setConfirmer(confirmer)
  return { policy, requests, verify, advance: (ms: number) => (t += ms) }
}

describe('SigningPolicy', () => {
  it('shows the summary and needs no passphrase within the window', async () => {
    const { policy, requests, verify } = setup([{ approved: true }])
    policy.notePassphraseEntered()
    await policy.approve(intent)
    expect(requests).toEqual([{ title: intent.title, summary: intent.summary, needsPassphrase: false }])
    expect(verify).not.toHaveBeenCalled()
  })
  it('asks for the passphrase after the window and verifies it', async () => {
    const { policy, requests, advance } = setup([
      { approved: true, passphrase: 'wrong one' },
      { approved: true, passphrase: 'the right passphrase' },
      { approved: true },
    ])
    policy.notePassphraseEntered()
    advance(60_001)
    await expect(policy.approve(intent)).rejects.toMatchObject({ code: 'PassphraseIncorrect' })
    await policy.approve(intent)
    await policy.approve(intent) // fresh again after a correct re-entry
    expect(requests.map((r) => r.needsPassphrase)).toEqual([true, true, false])
  })
  it('refuses when declined, without a summary, or without a confirmer', async () => {
    const { policy } = setup([{ approved: false }])
    policy.notePassphraseEntered()
    await expect(policy.approve(intent)).rejects.toMatchObject({ code: 'ConfirmationDeclined' })
    await expect(policy.approve(undefined)).rejects.toMatchObject({ code: 'ConfirmationRequired' })
    await expect(policy.approve({ ...intent, summary: [] })).rejects.toMatchObject({ code: 'ConfirmationRequired' })
    policy.setConfirmer(null)
    await expect(policy.approve(intent)).rejects.toMatchObject({ code: 'NoConfirmer' })
  })
  it('after reset (lock) the passphrase is always due', async () => {
    const { policy, requests } = setup([{ approved: true, passphrase: 'the right passphrase' }])
    policy.notePassphraseEntered()
    policy.reset()
    await policy.approve(intent)
    expect(requests[0]?.needsPassphrase).toBe(true)
  })
})
