/**
 * Sandboxed preload: exposes exactly one object, `window.desk`, with no logic of its own.
 * Validation of channel names, arguments and sender happens in main.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { EVENT_CHANNEL, INVOKE_CHANNEL, type DeskBridge } from '../main/contract/bridge'

const bridge: DeskBridge = {
  host: 'electron',
  invoke: (channel, args) => ipcRenderer.invoke(INVOKE_CHANNEL, channel, args),
  on(listener) {
    const wrapped = (_e: IpcRendererEvent, event: string, payload: unknown) => listener(event, payload)
    ipcRenderer.on(EVENT_CHANNEL, wrapped)
    return () => ipcRenderer.removeListener(EVENT_CHANNEL, wrapped)
  },
}

contextBridge.exposeInMainWorld('desk', bridge)
