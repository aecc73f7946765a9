/** What a host (Electron, web, CLI) provides to the core; each host implements what it can. */
export interface HostServices {
  /** Native file chooser; null when the host has none (the UI then asks for a path). */
  openFile(purpose: 'keystore'): Promise<string | null>
  /** Opens an already allow-listed https URL in the system browser. */
  openExternal(url: string): Promise<boolean>
}

export const headlessHostServices: HostServices = {
  openFile: async () => null,
  openExternal: async () => false,
}
