import { describe, expect, it } from 'vitest'
import { DeskError } from '../../contract/errors'
import type { CliIo } from './io'
import { columns, runCli, usage, type CommandGroup } from './router'

function fakeIo() {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    isInteractive: () => false,
    promptLine: () => Promise.reject(new Error('no tty')),
    promptHidden: () => Promise.reject(new Error('no tty')),
  }
  return { io, out, err }
}

const seen: Array<{ positionals: string[]; label: string | undefined; dataDir: string | undefined; json: boolean }> = []
const group: CommandGroup = {
  name: 'demo',
  summary: 'demo group',
  commands: [
    {
      name: 'echo',
      summary: 'echo',
      positionals: ['A', 'B?'],
      options: { label: { type: 'string', description: 'x' } },
      async run(ctx) {
        seen.push({ positionals: ctx.positionals, label: ctx.string('label'), dataDir: ctx.globals.dataDir, json: ctx.globals.json })
        ctx.print('human text', { machine: true })
      },
    },
    {
      name: 'fail',
      summary: 'fails',
      async run() {
        throw new DeskError('SomethingBad', 'it went\nwrong')
      },
    },
  ],
}

describe('desk router', () => {
  it('dispatches group and command with global and command options, in any order', async () => {
    const { io, out } = fakeIo()
    expect(await runCli(['--data-dir', '/d', 'demo', 'echo', 'x', '--label', 'L', '--json'], [group], io)).toBe(0)
    expect(seen.at(-1)).toEqual({ positionals: ['x'], label: 'L', dataDir: '/d', json: true })
    expect(out.join('')).toBe('{"machine":true}\n')
    const h = fakeIo()
    expect(await runCli(['demo', 'echo', 'x', 'y'], [group], h.io)).toBe(0)
    expect(h.out.join('')).toBe('human text\n')
  })

  it('usage errors exit 2 with one line on stderr', async () => {
    for (const argv of [
      ['nope'],
      ['demo'],
      ['demo', 'nope'],
      ['demo', 'echo'],
      ['demo', 'echo', 'a', 'b', 'c'],
      ['demo', 'echo', 'a', '--unknown'],
      [],
    ]) {
      const { io, err } = fakeIo()
      expect(await runCli(argv, [group], io), argv.join(' ')).toBe(2)
      if (argv.length > 0) {
        expect(err.join('')).toMatch(/^desk: .*\[Usage\]\n$/)
      }
    }
  })

  it('command failures exit 1 with the code and a single-line message', async () => {
    const { io, err, out } = fakeIo()
    expect(await runCli(['demo', 'fail'], [group], io)).toBe(1)
    expect(err).toEqual(['desk: it went wrong [SomethingBad]\n'])
    expect(out).toEqual([])
  })

  it('help goes to stdout and exits 0', async () => {
    const { io, out } = fakeIo()
    expect(await runCli(['demo', '--help'], [group], io)).toBe(0)
    expect(out.join('')).toContain('echo A B?')
  })

  it('help keeps its columns apart: a long usage puts the summary on the next line, aligned', () => {
    expect(columns([['  check ACCOUNT MARKET SIDE QUANTITY PRICE', 'check an order ticket']])).toEqual([
      '  check ACCOUNT MARKET SIDE QUANTITY PRICE',
      `${' '.repeat(34)}check an order ticket`,
    ])
    expect(columns([['  list ACCOUNT', 'open orders']])).toEqual([`${'  list ACCOUNT'.padEnd(34)}open orders`])
    for (const line of usage(
      [
        {
          name: 'orders',
          summary: 's',
          commands: [
            { name: 'check', summary: 'check it', positionals: ['ACCOUNT', 'MARKET', 'SIDE', 'QUANTITY', 'PRICE'], run: async () => {} },
          ],
        },
      ],
      {
        name: 'orders',
        summary: 's',
        commands: [
          { name: 'check', summary: 'check it', positionals: ['ACCOUNT', 'MARKET', 'SIDE', 'QUANTITY', 'PRICE'], run: async () => {} },
        ],
      },
    ).split('\n')) {
      expect(line).not.toMatch(/PRICEcheck/)
    }
  })
})
