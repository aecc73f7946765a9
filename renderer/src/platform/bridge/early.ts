import type { ChannelResult } from '../../../../main/contract/channels'
import type { DeskBridge } from '../../../../main/contract/bridge'
import type { Result } from '../../../../main/contract/types'
import { DeskCallError } from '../../shared/desk-call-error'

/**
 * The page's first calls, sent by a small entry script that runs before the app's bundle is
 * evaluated (app/main.ts): the host answers them (socket open, app state, the cached
 * overview) while the browser evaluates Vue, Naive UI and mounts the shell, instead of after
 * (first paint from cache at 200 accounts). Each answer is taken once, by the store that would
 * otherwise ask; anything later asks the host itself.
 */
type EarlyChannel = 'app.state' | 'portfolio.overview'

const early = new Map<EarlyChannel, Promise<unknown>>()

const unwrap = <T>(r: Result<T>): T => {
  if (!r || typeof r !== 'object' || !('ok' in r))
    throw new DeskCallError({ code: 'BadReply', message: 'The host sent an unexpected reply.' })
  if (!r.ok) throw new DeskCallError(r.error)
  return r.value
}

/**
 * Asks for the app state at once and, when the page opens on the overview and the vault turns
 * out unlocked, for the overview (a locked vault is never asked: the unlock screen comes first).
 */
export function startEarlyCalls(bridge: DeskBridge, opensOnOverview: boolean): void {
  early.clear()
  const appState = bridge.invoke('app.state', undefined).then((r) => unwrap(r as Result<ChannelResult<'app.state'>>))
  early.set('app.state', appState)
  if (!opensOnOverview) return
  const overview = appState.then((s) =>
    s.vault.unlocked
      ? bridge.invoke('portfolio.overview', undefined).then((r) => unwrap(r as Result<ChannelResult<'portfolio.overview'>>))
      : null,
  )
  early.set('portfolio.overview', overview)
  // Taken or not, a refusal here is never an unhandled rejection; the store that takes it sees it.
  appState.catch(() => {})
  overview.catch(() => {})
}

/**
 * The early answer for `channel`, once; null at once when none was asked (or it was already
 * taken), so a caller without one asks the host in the same tick. The promise gives null when
 * the overview was not asked because the vault was locked.
 */
export function takeEarly<N extends EarlyChannel>(channel: N): Promise<ChannelResult<N> | null> | null {
  const p = early.get(channel)
  if (!p) return null
  early.delete(channel)
  return p as Promise<ChannelResult<N> | null>
}

/** The early answer when there is one, else the host's answer now. */
export async function earlyOr<N extends EarlyChannel>(channel: N, ask: () => Promise<ChannelResult<N>>): Promise<ChannelResult<N>> {
  const taken = takeEarly(channel)
  return (taken && (await taken)) ?? ask()
}

/** Whether a URL fragment opens the overview: the start screen, the web host's token fragment, or the overview itself. */
export function opensOnOverview(hash: string): boolean {
  const path = hash.replace(/^#/, '')
  return path === '' || path === '/' || path.startsWith('token=') || /^\/overview(?:[?/]|$)/.test(path)
}
