/** The read commands' shared option (the network; the core serves the selected one). */
import type { OptionSpec } from '../router'

export const NETWORK_OPTION: Record<string, OptionSpec> = {
  network: { type: 'string', valueName: 'NAME', description: 'network to use (default: the selected one)' },
}
