import { describe, expect, it } from 'vitest'
import { assertPassphraseStrong, checkPassphrase } from './passphrase-policy'

describe('passphrase policy', () => {
  it('accepts long, varied passphrases', () => {
    for (const p of ['correct horse battery staple', 'Tr3asury-desk ops 2026!', 'vault unlock phrase 9'])
      expect(checkPassphrase(p)).toEqual({ ok: true })
  })
  it('rejects short ones with the minimum in the reason', () => {
    expect(checkPassphrase('Sh0rt!pass')).toEqual({ ok: false, reason: expect.stringContaining('12') })
  })
  it('rejects long but weak ones', () => {
    for (const p of [
      'aaaaaaaaaaaaaaaa',
      '123456789012',
      'abcdefghijklmnop',
      'qwertyuiopqwertyuiop',
      'password1234',
      'Password2024!',
      'passwordpassword',
      'abcabcabcabcabc',
      '111122221111',
    ]) {
      expect(checkPassphrase(p).ok, p).toBe(false)
    }
  })
  it('throws a typed PassphraseWeak error', () => {
    expect(() => assertPassphraseStrong('short')).toThrow(expect.objectContaining({ code: 'PassphraseWeak' }))
  })
})
