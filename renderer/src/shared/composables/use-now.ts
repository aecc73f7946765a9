import { onScopeDispose, ref, type Ref } from 'vue'

// One shared 1 s clock: ages and countdowns re-render their own text only, not whole tables.
const now = ref(Date.now())
let users = 0
let timer: ReturnType<typeof setInterval> | null = null

export function useNow(): Ref<number> {
  users++
  timer ??= setInterval(() => (now.value = Date.now()), 1000)
  onScopeDispose(() => {
    if (--users === 0 && timer) {
      clearInterval(timer)
      timer = null
    }
  })
  return now
}
