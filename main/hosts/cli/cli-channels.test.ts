/**
 * The desk calls the app's contract channels: the old `cli.*` mirror of status, journal, keys and
 * networks is gone (dispatching one is the typed UnknownChannel, from every host), and the
 * channels that take a secret the main process reads (raw key, keystore and vault passphrases,
 * files named by the desk) answer the desk only: the renderer's hosts get the typed CliOnly and
 * the handler never runs.
 */
import { describe, expect, it } from 'vitest'
import { channels, type ChannelName } from '../../contract/channels'
import { createDispatcher, type CallContext, type HandlerTable } from '../../core/ipc/dispatch'

const REMOVED = [
  'cli.status.show',
  'cli.status.credit',
  'cli.journal.list',
  'cli.journal.show',
  'cli.journal.export',
  'cli.keys.init',
  'cli.keys.list',
  'cli.keys.importKey',
  'cli.keys.importKeystore',
  'cli.keys.exportKeystore',
  'cli.keys.remove',
  'cli.networks.list',
  'cli.networks.set',
  'cli.networks.select',
  'cli.networks.remove',
]

/** Channels whose arguments carry a secret main reads (or a file path main opens for it). */
const SECRET_TAKING: { channel: ChannelName; args: unknown }[] = [
  { channel: 'accounts.importKey', args: { key: { file: '/tmp/key.txt' } } },
  { channel: 'accounts.importKeystoreFile', args: { file: '/tmp/ks.json', keystorePassphrase: { value: 'pw' } } },
  {
    channel: 'vault.exportKeystore',
    args: {
      address: '0x' + '11'.repeat(20),
      file: '/tmp/out.json',
      force: false,
      vaultPassphrase: { file: '/tmp/p' },
      keystorePassphrase: { value: 'pw' },
      kdf: { kdf: 'pbkdf2' },
    },
  },
  { channel: 'vault.init', args: { passphrase: { file: '/tmp/p' } } },
]

/** A dispatcher whose every handler records that it ran (the contract and the host checks are the real ones). */
function recordingDispatch() {
  const reached: string[] = []
  const handlers = new Proxy({} as HandlerTable, {
    get: (_t, name) => () => {
      reached.push(String(name))
      return { reached: String(name) }
    },
  })
  return { dispatch: createDispatcher(handlers), reached }
}

describe('the desk on the app contract', () => {
  it('no cli.* channel of status, journal, keys or networks is left in the contract', () => {
    const names = Object.keys(channels)
    for (const name of REMOVED) expect(names).not.toContain(name)
    expect(names.filter((n) => /^cli\.(status|journal|keys|networks)\./.test(n))).toEqual([])
  })

  it.each(['cli', 'electron', 'web'] as const)(
    'dispatching a removed cli.* channel from the %s host is the typed UnknownChannel',
    async (host) => {
      const { dispatch, reached } = recordingDispatch()
      for (const name of REMOVED) {
        const r = await dispatch(name, {}, { host })
        expect(r).toEqual({ ok: false, error: { code: 'UnknownChannel', message: 'This request is not part of the app contract.' } })
      }
      expect(reached).toEqual([])
    },
  )

  it.each(['electron', 'web', 'test'] as const)(
    'a channel that takes a secret is refused from the %s host (CliOnly) without running',
    async (host) => {
      const { dispatch, reached } = recordingDispatch()
      for (const { channel, args } of SECRET_TAKING) {
        expect(channels[channel]).toMatchObject({ cliOnly: true })
        const r = await dispatch(channel, args, { host } satisfies CallContext)
        expect(r).toMatchObject({ ok: false, error: { code: 'CliOnly', details: { channel } } })
      }
      expect(reached).toEqual([])
    },
  )

  it('the desk (host cli) reaches the same secret-taking handlers with valid arguments', async () => {
    const { dispatch, reached } = recordingDispatch()
    for (const { channel, args } of SECRET_TAKING)
      expect(await dispatch(channel, args, { host: 'cli' })).toEqual({ ok: true, value: { reached: channel } })
    expect(reached).toEqual(SECRET_TAKING.map((s) => s.channel))
  })

  it("the channels that replaced the mirror are the app's own (any host may read them), not cli-only", () => {
    for (const name of [
      'portfolio.status',
      'credit.health',
      'journal.records',
      'journal.record',
      'journal.records.export',
      'vault.keys',
      'networks.list',
      'networks.update',
      'networks.select',
      'networks.remove',
      'accounts.remove',
    ] as const) {
      expect(channels[name]).not.toHaveProperty('cliOnly')
    }
  })
})
