/** What a channel is, and the helpers every feature's channels (main/contract/<feature>.channels.ts) are built with. */

import type * as v from 'valibot'

/** A channel: its argument schema and (phantom) result type. */
export interface Channel<A extends v.GenericSchema, R> {
  args: A
  /** Type-only marker; never read at run time. */
  result?: R
  /** Queries read; intents change something (those that move funds or keys pass the confirmation gate in main). */
  kind: 'query' | 'intent'
  /**
   * Only the `desk` command line may call it (raw key import, keystore export, secrets read from
   * files by main): the dispatcher refuses it unless the caller's host is 'cli', which the
   * Electron and web hosts never set.
   */
  cliOnly?: true
}

// Curried so the result type is given and the argument type inferred from the schema.
export const query =
  <R>() =>
  <A extends v.GenericSchema>(args: A): Channel<A, R> => ({ args, kind: 'query' })
export const intent =
  <R>() =>
  <A extends v.GenericSchema>(args: A): Channel<A, R> => ({ args, kind: 'intent' })

/** A channel only the `desk` command line may call (see `Channel.cliOnly`). */
export const cliOnly =
  <R>() =>
  <A extends v.GenericSchema>(kind: 'query' | 'intent', args: A): Channel<A, R> => ({ args, kind, cliOnly: true })
