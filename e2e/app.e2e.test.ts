import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { openDesk, type DeskSession } from './harness'
import { firstRun } from './screens/helpers'

function wsStatus(url: string, origin: string): Promise<number | 'open'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { origin })
    ws.on('open', () => {
      ws.close()
      resolve('open')
    })
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.on('error', () => {})
  })
}

function httpStatus(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('web host and first screen', () => {
  let desk: DeskSession
  beforeAll(async () => {
    desk = await openDesk()
  })
  afterAll(async () => {
    await desk?.close()
  })

  it('opens the app in Chromium and shows its first screen', async () => {
    await desk.page.getByRole('heading', { name: 'Treasury Desk' }).waitFor()
    expect(await desk.page.title()).toBe('Treasury Desk')
  })

  it('refuses the bridge without the token, with a wrong token, or from another origin', async () => {
    const base = `ws://127.0.0.1:${desk.web.port}/bridge`
    expect(await wsStatus(`${base}?token=${desk.web.token}`, desk.web.origin)).toBe('open')
    expect(await wsStatus(base, desk.web.origin)).toBe(403)
    expect(await wsStatus(`${base}?token=${'0'.repeat(64)}`, desk.web.origin)).toBe(403)
    expect(await wsStatus(`${base}?token=${desk.web.token}`, 'http://evil.example')).toBe(403)
  })

  it('refuses HTTP requests that name another host (DNS rebinding)', async () => {
    expect(await httpStatus(desk.web.port, `127.0.0.1:${desk.web.port}`)).toBe(200)
    expect(await httpStatus(desk.web.port, 'evil.example')).toBe(421)
  })

  it('a reload of the tab, and the printed URL pasted again in it, reconnect to the same running core (vault still unlocked)', async () => {
    const { page } = desk
    await firstRun(page)
    await page.evaluate(() => (location.hash = '#/journal'))
    await page.getByRole('searchbox', { name: 'Search the journal', exact: true }).waitFor()
    expect(await page.evaluate(() => location.hash)).not.toContain('token=') // the router replaced the fragment
    await page.reload()
    await page.getByRole('navigation', { name: 'Main', exact: true }).waitFor()
    await page.getByRole('searchbox', { name: 'Search the journal', exact: true }).waitFor()
    expect(await page.getByText('Desk host disconnected').count()).toBe(0)
    expect(await page.getByRole('textbox', { name: /passphrase/i }).count()).toBe(0)
    // The URL the host printed, pasted into the same tab (a fragment change: no page load).
    await page.goto(desk.web.url)
    await page
      .getByRole('link', { name: /^Open account / })
      .first()
      .waitFor()
    await page.reload()
    await page
      .getByRole('link', { name: /^Open account / })
      .first()
      .waitFor()
    expect(await page.getByText('Desk host disconnected').count()).toBe(0)
    const state = await desk.core.dispatch('app.state', undefined, { host: 'test' })
    expect(state.ok && (state.value as { vault: { unlocked: boolean } }).vault.unlocked).toBe(true)
  })

  it("a pasted URL whose token is not this launch's gets nothing, and the advice says what to do", async () => {
    const page = await desk.page.context().newPage()
    await page.goto(`${desk.web.origin}/#token=${'0'.repeat(64)}`)
    await page.getByRole('alert').first().waitFor()
    const text = await page.getByRole('alert').first().innerText()
    expect(text).toMatch(/HostDisconnected|refused/i)
    expect(text).not.toMatch(/Restart the desk/)
    await page.close()
  })

  it('shows the refusal when the page is opened without its token', async () => {
    const page = await desk.page.context().newPage()
    await page.goto(desk.web.origin + '/')
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').innerText()).toMatch(/HostDisconnected|refused/i)
    await page.close()
  })
})
