import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfirmBroker } from '../../ipc/confirm-broker'
import { EventHub } from '../../ipc/events'
import { ExternalLinkPolicy, SHIPPED_EXTERNAL_HOSTS } from '../../security/external-links'
import { hostHandlers } from './handlers'

let dir: string
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'desk-links-'))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function setup(answer: boolean) {
  const events = new EventHub()
  const confirm = new ConfirmBroker(events)
  const asked: string[] = []
  events.subscribe((e, p) => {
    if (e !== 'confirm.request') return
    const req = p as { id: string; title: string }
    asked.push(req.title)
    confirm.respond(req.id, { approved: answer })
  })
  const opened: string[] = []
  const links = new ExternalLinkPolicy(dir)
  const h = hostHandlers({ confirm, links, services: { openFile: async () => null, openExternal: async (u) => (opened.push(u), true) } })
  const open = (url: string) => h['shell.openExternal']({ url }, { host: 'web' })
  return { open, opened, asked, links }
}

describe('shell.openExternal: main owns the allow-list', () => {
  it('opens a shipped host at once, in canonical form', async () => {
    const s = setup(false)
    expect(await s.open(`https://${SHIPPED_EXTERNAL_HOSTS[0]!.toUpperCase()}/guide`)).toEqual({ opened: true })
    expect(s.opened).toEqual([`https://${SHIPPED_EXTERNAL_HOSTS[0]}/guide`])
    expect(s.asked).toEqual([])
  })

  it('an unknown host needs the operator in a main-side confirmation; declined, nothing opens and the list stays', async () => {
    const s = setup(false)
    expect(await s.open('https://status.partner.example/')).toEqual({ opened: false })
    expect(s.asked).toEqual(['Allow links to status.partner.example?'])
    expect(s.opened).toEqual([])
    expect(s.links.isAllowed('https://status.partner.example/')).toBe(false)
  })

  it('approved, the host is added and the link opens; the next one opens without asking', async () => {
    const s = setup(true)
    expect(await s.open('https://status.partner.example/a')).toEqual({ opened: true })
    expect(await s.open('https://status.partner.example/b')).toEqual({ opened: true })
    expect(s.asked).toHaveLength(1)
    expect(s.opened).toEqual(['https://status.partner.example/a', 'https://status.partner.example/b'])
  })

  it('never offers what cannot be allowed: http, credentials in the URL, IP addresses', async () => {
    const s = setup(true)
    for (const url of [
      'http://status.partner.example/',
      'https://docs.example@evil.example/',
      'https://10.0.0.1/',
      'javascript:alert(1)',
    ]) {
      expect(await s.open(url), url).toEqual({ opened: false })
    }
    expect(s.asked).toEqual([])
  })
})
