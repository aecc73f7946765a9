import { createPinia } from 'pinia'
import { createApp } from 'vue'
import App from './App.vue'
import { getBridge } from './bridge/desk'
import { createDeskRouter } from './router'

// The bridge reads the web host's token from the URL fragment: take it before the router
// rewrites the fragment into a route.
getBridge()
const pinia = createPinia()
const app = createApp(App).use(pinia)
app.use(createDeskRouter())
app.mount('#app')
