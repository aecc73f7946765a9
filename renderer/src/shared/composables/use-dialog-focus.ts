import { nextTick, onBeforeUnmount, watch, type Ref } from 'vue'

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/**
 * Focus for a modal dialog: when it opens, remember the control that had focus and move
 * focus into the dialog (its `[autofocus]` element, else the first focusable one); Tab and
 * Shift+Tab stay inside; when it closes, focus returns to the invoking control (if that is
 * still on the page), so a keyboard user continues where they were.
 */
export function useDialogFocus(open: Ref<boolean>, container: Ref<HTMLElement | null>) {
  let invoker: HTMLElement | null = null

  const focusables = (): HTMLElement[] => (container.value ? [...container.value.querySelectorAll<HTMLElement>(FOCUSABLE)] : [])

  watch(
    open,
    async (isOpen, wasOpen) => {
      if (isOpen && !wasOpen) {
        const active = document.activeElement
        invoker = active instanceof HTMLElement && active !== document.body ? active : null
        await nextTick()
        const first = container.value?.querySelector<HTMLElement>('[autofocus]') ?? focusables()[0] ?? container.value
        first?.focus()
      } else if (!isOpen && wasOpen) {
        const back = invoker
        invoker = null
        if (back && back.isConnected) back.focus()
      }
    },
    { immediate: true },
  )
  onBeforeUnmount(() => {
    if (open.value && invoker?.isConnected) invoker.focus()
  })

  /** Keydown handler for the dialog element: keeps Tab inside. */
  function trapTab(e: KeyboardEvent): void {
    if (e.key !== 'Tab') return
    const items = focusables()
    if (items.length === 0) {
      e.preventDefault()
      return
    }
    const first = items[0]!
    const last = items[items.length - 1]!
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault()
      first.focus()
    }
  }

  return { trapTab }
}
