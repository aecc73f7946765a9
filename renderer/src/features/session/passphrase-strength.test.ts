import { describe, expect, it } from 'vitest'
import { passphraseStrength } from './passphrase-strength'

describe('passphraseStrength', () => {
  it('refuses what the vault policy refuses, with the reason', () => {
    expect(passphraseStrength('short')).toMatchObject({ acceptable: false, hint: expect.stringMatching(/12 characters/) })
    expect(passphraseStrength('aaaaaaaaaaaaaaa')).toMatchObject({ acceptable: false })
    expect(passphraseStrength('abcdefghijklmnop')).toMatchObject({ acceptable: false, hint: expect.stringMatching(/sequence/) })
    expect(passphraseStrength('password1234')).toMatchObject({ acceptable: false, hint: expect.stringMatching(/common/) })
  })
  it('grades acceptable passphrases, longer and more varied is stronger', () => {
    const fair = passphraseStrength('tulip harbor')
    const strong = passphraseStrength('Tulip-harbor-Violet-9-anchor')
    expect(fair.acceptable).toBe(true)
    expect(strong.acceptable).toBe(true)
    expect(strong.score).toBeGreaterThan(fair.score)
    expect(strong.label).toBe('strong')
  })
})
