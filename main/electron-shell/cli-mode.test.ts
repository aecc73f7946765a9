import { describe, expect, it } from 'vitest'
import { deskCliArgv, runDeskCli } from './cli-mode'

/** A stream whose writes are handed to the OS only after `lagMs` (a slow pipe). */
function slowStream(lagMs: number) {
  const written: string[] = []
  let drained = 0
  return {
    destroyed: false,
    written,
    drained: () => drained,
    write(chunk: string, cb?: () => void): boolean {
      written.push(chunk)
      setTimeout(() => {
        drained++
        cb?.()
      }, lagMs)
      return false
    },
  }
}

describe('the app started as desk (--desk-cli)', () => {
  it("hands the CLI every argument after --desk-cli (Chromium switches before it are the launcher's)", () => {
    expect(
      deskCliArgv(['/opt/app/treasury-desk', '--ozone-platform=headless', '--disable-gpu', '--desk-cli', 'status', '--json', 'two words']),
    ).toEqual(['/opt/app/treasury-desk', 'desk', 'status', '--json', 'two words'])
    expect(deskCliArgv(['/opt/app/treasury-desk'])).toBeNull()
  })

  it("imports the bundle by file URL, waits for piped output to drain, then exits with the CLI's code", async () => {
    const stdout = slowStream(30)
    const stderr = slowStream(10)
    const events: string[] = []
    let exitCode: number | undefined
    await runDeskCli({
      bundle: '/opt/app/resources/app.asar/out/cli/desk.mjs',
      importModule: async (url) => {
        events.push(`import ${url}`)
        stdout.write('{"big":"json"}\n')
        exitCode = 4
      },
      stdout: stdout as never,
      stderr: stderr as never,
      exitCode: () => exitCode,
      exit: (code) => events.push(`exit ${code} after ${stdout.drained()} stdout drains`),
    })
    expect(events).toEqual(['import file:///opt/app/resources/app.asar/out/cli/desk.mjs', 'exit 4 after 2 stdout drains'])
  })

  it('a bundle that fails to load is one line on stderr and exit 1', async () => {
    const stderr = slowStream(0)
    let code = -1
    await runDeskCli({
      bundle: '/nope/desk.mjs',
      importModule: () => Promise.reject(new Error('Cannot find module')),
      stdout: slowStream(0) as never,
      stderr: stderr as never,
      exitCode: () => undefined,
      exit: (c) => (code = c),
    })
    expect(code).toBe(1)
    expect(stderr.written[0]).toBe('desk: Cannot find module\n')
  })
})
