import { describe, expect, it } from 'vitest'
import { SANDBOX_DEFAULT_PORTS as desk, sandboxNetwork } from '../../core/config/networks'
import { SANDBOX_DEFAULT_PORTS as sandbox } from '../../../sandbox/ports'

describe('the desk and the standalone sandbox agree on the sandbox ports', () => {
  it('one value, held twice because the sandbox may not import the desk configuration', () => {
    expect(desk).toEqual(sandbox)
    expect(new URL(sandboxNetwork().tradingUrl!).port).toBe(String(sandbox.trading))
  })
})
