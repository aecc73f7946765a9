import type { HandlerTable } from '../../ipc/dispatch'
import type { ConfirmBroker } from '../../ipc/confirm-broker'

export type HostChannels = 'confirm.respond' | 'dialog.openFile' | 'shell.openExternal'

/** What a host (Electron, web, CLI) provides to the core; each host implements what it can. */
export interface HostServices {
  /** Native file chooser; null when the host has none (the UI then asks for a path). */
  openFile(purpose: 'keystore'): Promise<string | null>
  /** Opens an https URL in the system browser when main's allow-list holds its host. */
  openExternal(url: string): Promise<boolean>
}

export const headlessHostServices: HostServices = {
  openFile: async () => null,
  openExternal: async () => false,
}

export function hostHandlers(d: { confirm: ConfirmBroker; services: HostServices }): Pick<HandlerTable, HostChannels> {
  return {
    'confirm.respond': ({ id, approved, passphrase }) => ({ accepted: d.confirm.respond(id, approved ? { approved, ...(passphrase !== undefined ? { passphrase } : {}) } : { approved: false }) }),
    'dialog.openFile': async ({ purpose }) => ({ path: await d.services.openFile(purpose) }),
    'shell.openExternal': async ({ url }) => ({ opened: await d.services.openExternal(url) }),
  }
}
