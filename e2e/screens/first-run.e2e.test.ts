import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDesk, type DeskSession } from '../harness'
import { PASSPHRASE, nav, shot } from './helpers'

describe('first run and unlock', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
  })
  afterAll(async () => {
    await desk?.close()
  })

  it('creates the vault with strength feedback on the sandbox, shown as such', async () => {
    const { page } = desk
    await expect.poll(() => page.getByTestId('network-banner').innerText()).toMatch(/^SANDBOX/)
    await page.getByRole('textbox', { name: 'New vault passphrase', exact: true }).fill('password1234')
    expect(await page.getByTestId('passphrase-strength').innerText()).toMatch(/too weak/)
    expect(await page.getByRole('button', { name: 'Create vault', exact: true }).isDisabled()).toBe(true)
    await page.getByRole('textbox', { name: 'New vault passphrase', exact: true }).fill(PASSPHRASE)
    await page.getByRole('textbox', { name: 'Repeat vault passphrase', exact: true }).fill(PASSPHRASE)
    expect(await page.getByTestId('passphrase-strength').innerText()).toMatch(/strong/)
    await shot(page, 'first-run')
    await page.getByRole('button', { name: 'Create vault', exact: true }).click()
    await page.getByRole('region', { name: 'Add accounts', exact: true }).waitFor()
  })

  it('adds the sandbox accounts, generates a key and a watch-only address, then shows them all', async () => {
    const { page } = desk
    await page.getByRole('button', { name: 'Add the sandbox demo accounts', exact: true }).click()
    await page.getByText(/\d+ sandbox accounts added/).waitFor()
    await page.getByRole('textbox', { name: 'Label for the new key', exact: true }).fill('fresh-key')
    await page.getByRole('button', { name: 'Generate a new key', exact: true }).click()
    await page.getByText(/Added fresh-key/).waitFor()
    await page.getByRole('textbox', { name: 'Watch-only address', exact: true }).fill('0x00000000000000000000000000000000000000aa')
    await page.getByRole('textbox', { name: 'Label for the watch-only address', exact: true }).fill('watched')
    await page.getByRole('button', { name: 'Add watch-only address', exact: true }).click()
    await page.getByText(/Added watched .*watch-only/).waitFor()
    await page.getByRole('button', { name: 'Continue to overview', exact: true }).click()
    await page.getByRole('link', { name: 'Open account fresh-key', exact: true }).waitFor()
    await page.getByRole('link', { name: 'Open account watched', exact: true }).waitFor()
  })

  it('locks, refuses a wrong passphrase with its code and advice, and unlocks', async () => {
    const { page } = desk
    await page.getByRole('button', { name: 'Lock the vault', exact: true }).click()
    await page.getByRole('textbox', { name: 'Vault passphrase', exact: true }).waitFor()
    expect(await page.getByRole('status', { name: 'Vault locked', exact: true }).count()).toBe(1)
    await shot(page, 'unlock')
    await page.getByRole('textbox', { name: 'Vault passphrase', exact: true }).fill('not the passphrase')
    await page.getByRole('button', { name: 'Unlock', exact: true }).click()
    await page.getByTestId('error-code').waitFor()
    expect(await page.getByTestId('error-code').innerText()).toBe('PassphraseIncorrect')
    expect(await page.getByTestId('error-advice').innerText()).toMatch(/Type it again/)
    await page.getByRole('textbox', { name: 'Vault passphrase', exact: true }).fill(PASSPHRASE)
    await page.getByRole('button', { name: 'Unlock', exact: true }).click()
    await page
      .getByRole('link', { name: /^Open account / })
      .first()
      .waitFor()
    await nav(page, 'Settings')
    await page.getByRole('table', { name: 'Networks', exact: true }).waitFor()
    await shot(page, 'settings')
  })
})
