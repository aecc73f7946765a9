import { describe, expect, it } from 'vitest'
import { parseWebArgs, WEB_USAGE, WebUsageError } from './args'

describe('npm run web arguments', () => {
  it('--help and -h ask for the usage, which names every option', () => {
    expect(parseWebArgs(['--help'])).toEqual({ help: true })
    expect(parseWebArgs(['-h'])).toEqual({ help: true })
    for (const o of ['--data-dir', '--port', '--host', '--help']) expect(WEB_USAGE).toContain(o)
  })
  it('defaults to any free loopback port', () => {
    expect(parseWebArgs([])).toEqual({ help: false, dataDir: undefined, port: 0, host: '127.0.0.1' })
    expect(parseWebArgs(['--port', '8080', '--data-dir', '/tmp/d'])).toMatchObject({ port: 8080, dataDir: '/tmp/d' })
  })
  it('refuses unknown options, positionals and bad ports with a usage error', () => {
    for (const argv of [['--nope'], ['extra'], ['--port', 'abc'], ['--port', '70000'], ['--port', '-1']]) {
      expect(() => parseWebArgs(argv), argv.join(' ')).toThrow(WebUsageError)
    }
  })
})
