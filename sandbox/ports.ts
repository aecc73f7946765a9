/**
 * Default loopback ports of the standalone sandbox. The desk's sandbox network
 * (`main/core/config/networks.ts`, SANDBOX_DEFAULT_PORTS) must use the same values; they are
 * repeated here because the sandbox may not import the desk's configuration.
 */
export const SANDBOX_DEFAULT_PORTS = { trading: 47_100, earn: 47_100 } as const
