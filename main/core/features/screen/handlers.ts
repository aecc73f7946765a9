import type { CallContext, HandlerTable } from '../../ipc/dispatch'
import type { ScreenLeases } from './screen-leases'

export type ScreenChannels = 'screen.watch' | 'screen.release'

/**
 * Who holds a lease: the window or socket the host named; a host that names none (the CLI, a
 * test) holds its leases under its host and client, and they lapse unless renewed.
 */
export function senderOf(ctx: CallContext): string {
  return ctx.sender ?? `${ctx.host}:${ctx.client ?? 'main'}`
}

export function screenHandlers(d: { leases: ScreenLeases }): Pick<HandlerTable, ScreenChannels> {
  return {
    'screen.watch': ({ target, leaseId }, ctx) => d.leases.watch(senderOf(ctx), target, leaseId),
    'screen.release': ({ leaseId }, ctx) => ({ released: d.leases.release(senderOf(ctx), leaseId) }),
  }
}
