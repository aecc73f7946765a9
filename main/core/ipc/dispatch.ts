import { AsyncLocalStorage } from 'node:async_hooks'
import * as v from 'valibot'
import { channels, type ChannelName, type Channels, type ChannelResult } from '../../contract/channels'
import type { ErrorData, Result } from '../../contract/types'
import { toErrorData } from '../errors/desk-error'

/**
 * Who is calling: already checked by the host (Electron frame URL, web-host token + Origin).
 * 'cli' is set only by the `desk` attach socket server and the desk's in-process core, never
 * by the Electron or web hosts; `client` names one attached desk connection.
 */
export interface CallContext {
  host: 'electron' | 'web' | 'test' | 'cli'
  client?: string
  /**
   * The calling window or connection (an Electron webContents, a web-host socket), set by its
   * host; what it holds (screen leases) ends when the host reports it gone.
   */
  sender?: string
  /** The operator-policy checks this call passed (filled by core/policy's guards; shown in its confirmation). */
  checks?: string[]
  /** The USD value of the amount this call moves, at the current mark (filled by the policy's valuation). */
  amountUsd?: string | undefined
}

/**
 * The call a piece of work belongs to, for code deep below a handler (the confirmation broker
 * tags a signature request with the client whose call triggered it).
 */
const currentCall = new AsyncLocalStorage<CallContext>()
export function currentCallContext(): CallContext | undefined {
  return currentCall.getStore()
}

export type HandlerArgs<N extends ChannelName> = v.InferOutput<Channels[N]['args']>
export type Handler<N extends ChannelName> = (args: HandlerArgs<N>, ctx: CallContext) => Promise<ChannelResult<N>> | ChannelResult<N>
export type HandlerTable = { [N in ChannelName]: Handler<N> }

export interface DispatchLog {
  warn(message: string, fields: Record<string, string | number | boolean>): void
}

const MAX_ISSUES = 3

function fail(code: string, message: string, details?: ErrorData['details']): Result<never> {
  return { ok: false, error: details ? { code, message, details } : { code, message } }
}

function isChannel(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(channels, name)
}

/**
 * Builds the single entry point every host calls. It never throws: an unknown channel, an
 * argument that fails its schema, or a handler failure all come back as `{ ok: false, error }`
 * with plain data, and the process keeps serving. Argument values are never logged (they may
 * hold a passphrase); only the channel name and the error code are.
 */
export function createDispatcher(handlers: HandlerTable, log?: DispatchLog) {
  return async function dispatch(channel: unknown, rawArgs: unknown, ctx: CallContext): Promise<Result<unknown>> {
    if (!isChannel(channel)) {
      log?.warn('ipc: unknown channel', { channel: typeof channel === 'string' ? channel.slice(0, 64) : typeof channel })
      return fail('UnknownChannel', 'This request is not part of the app contract.')
    }
    if ((channels[channel] as { cliOnly?: true }).cliOnly && ctx.host !== 'cli') {
      log?.warn('ipc: cli-only channel refused', { channel, host: ctx.host })
      return fail('CliOnly', `${channel} is available to the desk command line only.`, { channel })
    }
    const schema = channels[channel].args as v.GenericSchema
    const parsed = v.safeParse(schema, rawArgs)
    if (!parsed.success) {
      const issues = parsed.issues.slice(0, MAX_ISSUES).map((i) => `${v.getDotPath(i) ?? 'argument'}: ${i.message}`)
      log?.warn('ipc: invalid arguments', { channel })
      return fail('InvalidArguments', `Invalid arguments for ${channel}: ${issues.join('; ')}`, { channel })
    }
    try {
      const handler = handlers[channel] as (args: unknown, ctx: CallContext) => unknown
      const value = await currentCall.run({ ...ctx, checks: [] }, () => handler(parsed.output, ctx))
      return { ok: true, value }
    } catch (e) {
      const error = toErrorData(e)
      log?.warn('ipc: handler failed', { channel, code: error.code })
      return { ok: false, error }
    }
  }
}

export type Dispatch = ReturnType<typeof createDispatcher>

/**
 * Joins the features' handler slices into the table for the contract, refusing a channel
 * handled twice or not at all (checked once, when the core is composed).
 */
export function mergeHandlers(slices: readonly Partial<Record<ChannelName, unknown>>[]): HandlerTable {
  const table: Partial<Record<ChannelName, unknown>> = {}
  for (const slice of slices) {
    for (const name of Object.keys(slice) as ChannelName[]) {
      if (name in table) throw new Error(`contract channel ${name} has two handlers`)
      if (!isChannel(name)) throw new Error(`handler for ${name}, which is not a contract channel`)
      table[name] = slice[name]
    }
  }
  const missing = (Object.keys(channels) as ChannelName[]).filter((n) => !(n in table))
  if (missing.length > 0) throw new Error(`contract channels without a handler: ${missing.join(', ')}`)
  return table as HandlerTable
}
