import { mount, type ComponentMountingOptions } from '@vue/test-utils'
import { createPinia, setActivePinia, type Pinia } from 'pinia'
import type { Component } from 'vue'
import { createMemoryHistory, createRouter } from 'vue-router'

/** Mounts a screen with Pinia and an in-memory router (the screens use route and router). */
export async function mountScreen(component: Component, opts: { props?: Record<string, unknown>; path?: string; pinia?: Pinia } = {}) {
  const pinia = opts.pinia ?? createPinia()
  setActivePinia(pinia)
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/:rest(.*)*', component: { render: () => null } }] })
  await router.push(opts.path ?? '/')
  await router.isReady()
  const w = mount(
    component as never,
    { props: opts.props, attachTo: document.body, global: { plugins: [pinia, router] } } as ComponentMountingOptions<never>,
  )
  return { wrapper: w, router, pinia }
}
