/// <reference types="vite/client" />
import type { DeskBridge } from '../../main/contract/bridge'

declare module '*.vue' {
  import type { DefineComponent } from 'vue'
  const component: DefineComponent<object, object, unknown>
  export default component
}

declare global {
  interface Window {
    desk?: DeskBridge
  }
}
