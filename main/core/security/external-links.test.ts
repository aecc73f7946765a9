import { promises as fs, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EXTERNAL_HOSTS_FILE, ExternalLinkPolicy, SHIPPED_EXTERNAL_HOSTS, externalHostOf, normalizeExternalHost } from './external-links'

const DOCS = SHIPPED_EXTERNAL_HOSTS[0]!
let dir: string

beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'ext-links-'))
})
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true })
})

describe('external link policy: what may be opened', () => {
  const policy = new ExternalLinkPolicy('/nonexistent')

  it('opens https links to the shipped documentation and explorer hosts', () => {
    for (const host of SHIPPED_EXTERNAL_HOSTS) expect(policy.isAllowed(`https://${host}/path?q=1#frag`)).toBe(true)
    expect(policy.hosts()).toEqual([...SHIPPED_EXTERNAL_HOSTS])
  })

  it('refuses every other scheme, including http to an allowed host', () => {
    for (const url of [
      `http://${DOCS}/`,
      `ftp://${DOCS}/`,
      `file:///etc/passwd`,
      `javascript:alert(1)`,
      `data:text/html,x`,
      `//${DOCS}/`,
      `${DOCS}/x`,
      'not a url',
      '',
    ]) {
      expect(policy.isAllowed(url), url).toBe(false)
    }
  })

  it('refuses userinfo tricks, whichever side the allowed host is on', () => {
    for (const url of [
      `https://${DOCS}@evil.test/`,
      `https://${DOCS}:pw@evil.test/`,
      `https://evil.test@${DOCS}/`,
      `https://user:pass@${DOCS}/`,
      `https://evil.test\\@${DOCS}/`,
      `https://evil.test\\${DOCS}/`,
      `https://${DOCS}.evil.test/`,
      `https://evil-${DOCS}/`,
      `https://evil.test/${DOCS}`,
      `https://evil.test/?u=https://${DOCS}`,
    ]) {
      expect(policy.isAllowed(url), url).toBe(false)
    }
  })

  it('refuses whitespace and control characters the OS browser might parse differently', () => {
    for (const url of [
      `https://${DOCS}/a b`,
      ` https://${DOCS}/`,
      `https://${DOCS}/\n`,
      `https://${DOCS}/\t`,
      `https://${DOCS}/\u0000`,
      `https://${DOCS}/${'a'.repeat(3000)}`,
    ]) {
      expect(policy.isAllowed(url), JSON.stringify(url.slice(0, 40))).toBe(false)
    }
  })

  it('normalizes case, a trailing dot, the default port and percent-encoding; opens the canonical form', () => {
    expect(policy.allowedUrl(`HTTPS://${DOCS.toUpperCase()}/Guide`)).toBe(`https://${DOCS}/Guide`)
    expect(policy.isAllowed(`https://${DOCS}./x`)).toBe(true)
    expect(policy.allowedUrl(`https://${DOCS}:443/x`)).toBe(`https://${DOCS}/x`)
    expect(policy.allowedUrl(`https://${DOCS.replace('.', '%2E')}/x`)).toBe(`https://${DOCS}/x`)
  })

  it('a non-default port must be listed with the host', async () => {
    expect(policy.isAllowed(`https://${DOCS}:8443/x`)).toBe(false)
    const p = await ExternalLinkPolicy.load(dir)
    await p.addConfirmed('Explorer.Partner.example:8443')
    expect(p.isAllowed('https://explorer.partner.example:8443/tx/1')).toBe(true)
    expect(p.isAllowed('https://explorer.partner.example/tx/1')).toBe(false)
    expect(p.isAllowed('https://explorer.partner.example:9443/tx/1')).toBe(false)
  })

  it('IDN hosts compare in punycode; a look-alike host is a different host', async () => {
    const p = await ExternalLinkPolicy.load(dir)
    expect(await p.addConfirmed('Bücher.example')).toBe('xn--bcher-kva.example')
    expect(p.isAllowed('https://BÜCHER.example/')).toBe(true)
    expect(p.isAllowed('https://xn--bcher-kva.example/')).toBe(true)
    // Cyrillic "о" in place of the Latin "o" of the shipped docs host.
    expect(policy.isAllowed(`https://${DOCS.replace('o', '\u043e')}/`)).toBe(false)
  })

  it('IP literals and single-label names are never allowed', () => {
    for (const url of ['https://127.0.0.1/', 'https://[::1]/', 'https://localhost/', 'https://2130706433/', 'https://0x7f.1/']) {
      expect(externalHostOf(url), url).toBe(null)
    }
    for (const host of ['127.0.0.1', '[::1]', 'localhost', '10.0.0.1:443'])
      expect(() => normalizeExternalHost(host), host).toThrow(expect.objectContaining({ code: 'InvalidExternalHost' }))
  })

  it('operator input that is not a bare host is a typed error', () => {
    for (const host of [
      'https://docs.example',
      'docs.example/path',
      'user@docs.example',
      'docs.example?x',
      'docs.example#x',
      'docs example',
      'docs..example',
      '',
      'a'.repeat(300) + '.example',
    ]) {
      expect(() => normalizeExternalHost(host), host).toThrow(expect.objectContaining({ code: 'InvalidExternalHost' }))
    }
  })
})

describe('external link policy: operator-confirmed hosts on disk', () => {
  it('persists confirmed hosts atomically (mode 0600) and reloads them; removal persists too', async () => {
    const p = await ExternalLinkPolicy.load(dir, { now: () => Date.UTC(2026, 0, 2) })
    expect(await p.addConfirmed('Status.Service.example')).toBe('status.service.example')
    expect(await p.addConfirmed('status.service.example')).toBe('status.service.example') // idempotent
    expect(await p.addConfirmed(DOCS)).toBe(DOCS) // shipped: nothing stored
    const file = join(dir, EXTERNAL_HOSTS_FILE)
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({
      format: 'treasury-desk-external-hosts',
      version: 1,
      hosts: [{ host: 'status.service.example', addedAt: '2026-01-02T00:00:00.000Z' }],
    })
    expect((await fs.readdir(dir)).filter((n) => n.includes('.tmp-'))).toEqual([])
    const again = await ExternalLinkPolicy.load(dir)
    expect(again.hosts()).toEqual([...SHIPPED_EXTERNAL_HOSTS, 'status.service.example'])
    expect(again.isAllowed('https://status.service.example/incidents')).toBe(true)
    expect(await again.remove('status.service.example')).toBe(true)
    expect(await again.remove('status.service.example')).toBe(false)
    expect((await ExternalLinkPolicy.load(dir)).isAllowed('https://status.service.example/')).toBe(false)
  })

  it('no file means shipped hosts only', async () => {
    expect((await ExternalLinkPolicy.load(dir)).hosts()).toEqual([...SHIPPED_EXTERNAL_HOSTS])
  })

  it('a damaged file is a typed error naming it, never a crash and never a wider list', async () => {
    const file = join(dir, EXTERNAL_HOSTS_FILE)
    const good = {
      format: 'treasury-desk-external-hosts',
      version: 1,
      hosts: [{ host: 'status.service.example', addedAt: '2026-01-02T00:00:00.000Z' }],
    }
    const cases: unknown[] = [
      '{"format": "treasury-desk-external-hosts", "vers',
      '[]',
      { ...good, version: 2 },
      { ...good, extra: true },
      { ...good, hosts: [{ host: 'Status.Service.example', addedAt: '2026-01-02T00:00:00.000Z' }] },
      { ...good, hosts: [{ host: 'evil.test/path', addedAt: '2026-01-02T00:00:00.000Z' }] },
      { ...good, hosts: [{ host: 'user@evil.test', addedAt: '2026-01-02T00:00:00.000Z' }] },
      { ...good, hosts: [...good.hosts, ...good.hosts] },
      { ...good, hosts: [{ host: 'status.service.example', addedAt: 'yesterday' }] },
      { ...good, hosts: Array.from({ length: 300 }, (_, i) => ({ host: `h${i}.example`, addedAt: '2026-01-02T00:00:00.000Z' })) },
    ]
    for (const c of cases) {
      await fs.writeFile(file, typeof c === 'string' ? c : JSON.stringify(c))
      await expect(ExternalLinkPolicy.load(dir), JSON.stringify(c).slice(0, 80)).rejects.toMatchObject({
        code: 'ExternalHostsFileDamaged',
        details: { path: file },
      })
    }
    await fs.writeFile(file, JSON.stringify(good))
    expect((await ExternalLinkPolicy.load(dir)).isAllowed('https://status.service.example/')).toBe(true)
  })

  it('a failed write is a typed error and changes nothing', async () => {
    const p = await ExternalLinkPolicy.load(join(dir, 'missing-subdir'))
    await expect(p.addConfirmed('status.service.example')).rejects.toMatchObject({ code: 'ExternalHostsWriteFailed' })
    expect(p.isAllowed('https://status.service.example/')).toBe(false)
  })
})
