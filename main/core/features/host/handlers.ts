import type { CliInstallView } from '../../../contract/types'
import type { HandlerTable } from '../../ipc/dispatch'
import type { ConfirmBroker } from '../../ipc/confirm-broker'
import { externalHostOf, type ExternalLinkPolicy } from '../../security/external-links'

export type HostChannels = 'confirm.respond' | 'dialog.openFile' | 'shell.openExternal' | 'app.installCli'

/** What a host (Electron, web, CLI) provides to the core; each host implements what it can. */
export interface HostServices {
  /** Native file chooser; null when the host has none (the UI then asks for a path). */
  openFile(purpose: 'keystore'): Promise<string | null>
  /** Opens a URL main has already checked against its allow-list, in the system browser. */
  openExternal(url: string): Promise<boolean>
  /** Puts the packaged `desk` launcher on the PATH; absent where the host ships no launcher. */
  installCli?(): Promise<CliInstallView>
}

export const headlessHostServices: HostServices = {
  openFile: async () => null,
  openExternal: async () => false,
}

/**
 * Opens a link only when main's allow-list holds its host (shipped hosts, plus hosts the
 * operator approved in a main-side confirmation). A renderer call alone never widens the list:
 * an unknown but well-formed https host is offered in the same confirmation dialog as a signature.
 */
async function openLink(d: { confirm: ConfirmBroker; services: HostServices; links: ExternalLinkPolicy }, url: string): Promise<boolean> {
  let href = d.links.allowedUrl(url)
  if (!href) {
    const host = externalHostOf(url)
    if (!host) return false
    const answer = await d.confirm.confirm({
      title: `Allow links to ${host}?`,
      summary: [
        `The app asks to open ${url.slice(0, 200)}`,
        `${host} is not on the list of sites the desk opens.`,
        'Approve only if you know this site: it will be added to the list.',
      ],
      needsPassphrase: false,
    })
    if (!answer.approved) return false
    await d.links.addConfirmed(host)
    href = d.links.allowedUrl(url)
    if (!href) return false
  }
  return d.services.openExternal(href)
}

export function hostHandlers(d: {
  confirm: ConfirmBroker
  services: HostServices
  links: ExternalLinkPolicy
}): Pick<HandlerTable, HostChannels> {
  return {
    'confirm.respond': ({ id, approved, passphrase }) => ({
      accepted: d.confirm.respond(id, approved ? { approved, ...(passphrase !== undefined ? { passphrase } : {}) } : { approved: false }),
    }),
    'dialog.openFile': async ({ purpose }) => ({ path: await d.services.openFile(purpose) }),
    'shell.openExternal': async ({ url }) => ({ opened: await openLink(d, url) }),
    'app.installCli': async () =>
      d.services.installCli
        ? d.services.installCli()
        : {
            installed: false,
            path: null,
            onPath: false,
            message: 'Only the desktop app ships the desk launcher; here run `npm run desk` or `node bin/desk.mjs`.',
          },
  }
}
