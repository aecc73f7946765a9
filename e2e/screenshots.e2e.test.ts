/** A test run writes no tracked file: README screenshots only with DESK_SCREENSHOTS=1. */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { screenshotsDir, shot } from './screens/helpers'
import { repoRoot } from './harness'

const fakePage = () => {
  const screenshot = vi.fn(async () => Buffer.alloc(0))
  return { page: { screenshot, waitForTimeout: async () => {} } as unknown as Page, screenshot }
}

describe('README screenshots', () => {
  afterEach(() => vi.unstubAllEnvs())

  it('are not taken by a normal test run', async () => {
    vi.stubEnv('DESK_SCREENSHOTS', '')
    const { page, screenshot } = fakePage()
    await shot(page, 'overview')
    expect(screenshot).not.toHaveBeenCalled()
  })

  it('are taken into docs/screenshots by their own command', async () => {
    vi.stubEnv('DESK_SCREENSHOTS', '1')
    const { page, screenshot } = fakePage()
    await shot(page, 'overview')
    expect(screenshotsDir).toBe(join(repoRoot, 'docs/screenshots'))
    expect(screenshot).toHaveBeenCalledWith({ path: join(screenshotsDir, 'overview.png') })
  })
})
