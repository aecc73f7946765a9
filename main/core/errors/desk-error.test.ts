import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import * as contract from '../../contract/errors'
import { readSecretFile } from '../vault/secret-file'
import { DeskError, isDeskError, toErrorData } from './desk-error'

describe('one DeskError for the core and the desk CLI', () => {
  it('is the contract class itself, so the CLI (which imports only the contract) catches what the core throws', async () => {
    expect(DeskError).toBe(contract.DeskError)
    const thrown = await readSecretFile(join(tmpdir(), 'desk-no-such-secret-file'), 'vault passphrase').catch((e: unknown) => e)
    expect(thrown).toBeInstanceOf(contract.DeskError)
    expect(contract.isDeskError(thrown)).toBe(true)
    expect(thrown).toMatchObject({ code: 'SecretFileUnreadable' })
  })

  it('serialises to plain data and hides anything that is not a DeskError', () => {
    const e = new contract.DeskError('VaultLocked', 'the vault is locked', { path: '/x' })
    expect(isDeskError(e)).toBe(true)
    expect(toErrorData(e)).toEqual({ code: 'VaultLocked', message: 'the vault is locked', details: { path: '/x' } })
    expect(toErrorData(new Error('secret text'))).toEqual({
      code: 'Internal',
      message: 'An internal error occurred; see the main-process log.',
    })
  })
})
