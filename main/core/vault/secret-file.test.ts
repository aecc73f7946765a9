import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MAX_SECRET_FILE_BYTES, readSecretFile } from './secret-file'

describe('readSecretFile (the one reader of --passphrase-file and every secret file, CLI and main)', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'desk-secret-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  const file = (name: string, content: string | Buffer) => {
    const p = join(dir, name)
    writeFileSync(p, content)
    return p
  }

  it('returns the text without one trailing newline (LF or CRLF), keeping inner and leading spaces', async () => {
    expect(await readSecretFile(file('a', 'correct horse\n'), 'vault passphrase')).toBe('correct horse')
    expect(await readSecretFile(file('b', ' two words \r\n'), 'vault passphrase')).toBe(' two words ')
    expect(await readSecretFile(file('c', 'pass\n\n'), 'vault passphrase')).toBe('pass\n')
  })

  it('accepts a file of exactly 64 KiB and refuses one byte more as SecretFileInvalid', async () => {
    expect(MAX_SECRET_FILE_BYTES).toBe(64 * 1024)
    const atLimit = await readSecretFile(file('max', 'x'.repeat(MAX_SECRET_FILE_BYTES)), 'private key')
    expect(atLimit.length).toBe(MAX_SECRET_FILE_BYTES)
    await expect(readSecretFile(file('big', 'x'.repeat(MAX_SECRET_FILE_BYTES + 1)), 'private key')).rejects.toMatchObject({
      code: 'SecretFileInvalid',
      message: expect.stringContaining('private key file'),
    })
  })

  it('refuses an empty file, or one holding only a newline, as SecretFileInvalid', async () => {
    await expect(readSecretFile(file('empty', ''), 'vault passphrase')).rejects.toMatchObject({
      code: 'SecretFileInvalid',
      message: expect.stringContaining('is empty'),
    })
    await expect(readSecretFile(file('nl', '\n'), 'vault passphrase')).rejects.toMatchObject({
      code: 'SecretFileInvalid',
      message: expect.stringContaining('is empty'),
    })
  })

  it('refuses a directory as SecretFileInvalid (not a regular file)', async () => {
    const sub = join(dir, 'sub')
    mkdirSync(sub)
    await expect(readSecretFile(sub, 'vault passphrase')).rejects.toMatchObject({ code: 'SecretFileInvalid' })
  })

  it('reports a missing or unreadable path as SecretFileUnreadable with the errno code, never the content', async () => {
    const missing = join(dir, 'nope')
    await expect(readSecretFile(missing, 'keystore passphrase')).rejects.toMatchObject({
      code: 'SecretFileUnreadable',
      message: `cannot read the keystore passphrase file ${missing}: ENOENT`,
    })
    // A path through a regular file cannot be opened (ENOTDIR), even as root.
    const through = join(file('plain', 'secret'), 'x')
    await expect(readSecretFile(through, 'vault passphrase')).rejects.toMatchObject({
      code: 'SecretFileUnreadable',
      message: expect.stringContaining('ENOTDIR'),
    })
  })
})
