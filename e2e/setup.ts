import { afterEach } from 'vitest'
import { screenshotOpenPages } from './harness'

// Failing browser tests keep a screenshot of every open page under e2e/artifacts/.
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') await screenshotOpenPages(ctx.task.name)
})
