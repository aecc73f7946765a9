import { join } from 'node:path'
import { startSandbox } from '../../../sandbox'
import type { NetworkConfig, SandboxHandle, SandboxStarter } from '../../core/config/networks'
import { requireConfigured } from '../../core/config/networks'

function portOf(url: string | null | undefined): number {
  if (!url) return 0
  const p = new URL(url).port
  return p ? Number(p) : 0
}

/**
 * Starts the built-in sandbox in-process on the network's configured loopback ports (so `desk`
 * and the app see one exchange), keeping its state under the data directory. When those ports
 * are already taken (`npm run sandbox` or another app instance is serving them), the running
 * sandbox at the configured URLs is used instead.
 */
export function inProcessSandbox(dataDir: string, log: (line: string) => void = () => {}): SandboxStarter {
  return async (n: NetworkConfig): Promise<SandboxHandle> => {
    try {
      const trading = portOf(n.tradingUrl)
      const earn = portOf(n.earnUrl)
      return await startSandbox({
        port: trading,
        ...(earn && earn !== trading ? { earnPort: earn } : {}),
        dataDir: join(dataDir, 'sandbox'),
        seed: true,
        log,
      })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e
      const r = requireConfigured(n)
      log(`sandbox ports in use; using the sandbox already running at ${r.tradingUrl}`)
      return { tradingUrl: r.tradingUrl, wsUrl: r.wsUrl, earnUrl: r.earnUrl, chainId: r.chainId, stop: async () => {} }
    }
  }
}
