import { createPinia } from 'pinia'
import { createApp } from 'vue'
import App from './App.vue'
import { createDeskRouter } from './router'

// `window.desk` is already there: Electron's preload, or the web entry's adapter.
const pinia = createPinia()
const app = createApp(App).use(pinia)
app.use(createDeskRouter())
app.mount('#app')
