import { nextTick, onBeforeUnmount, watch, type Ref } from 'vue'

/**
 * The control that last had focus: a submit button that disables itself while its call runs
 * drops focus to the body before main's confirmation opens, and is still the one to return to.
 */
let lastFocused: HTMLElement | null = null
if (typeof document !== 'undefined') {
  document.addEventListener(
    'focusin',
    (e) => {
      if (e.target instanceof HTMLElement) lastFocused = e.target
    },
    true,
  )
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

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
        invoker =
          active instanceof HTMLElement && active !== document.body
            ? active
            : lastFocused?.isConnected && !container.value?.contains(lastFocused)
              ? lastFocused
              : null
        await nextTick()
        const first = container.value?.querySelector<HTMLElement>('[autofocus]') ?? focusables()[0] ?? container.value
        first?.focus()
      } else if (!isOpen && wasOpen) {
        const back = invoker
        invoker = null
        if (back) restore(back)
      }
    },
    { immediate: true },
  )
  /**
   * The invoker is often a submit button its form disables while the call that asked for the
   * confirmation settles: focus it once it is enabled again (within 2 s), unless the operator
   * has moved focus elsewhere meanwhile.
   */
  function restore(el: HTMLElement, tries = 40): void {
    if (!el.isConnected) return
    if ((el as HTMLButtonElement).disabled) {
      if (tries > 0)
        setTimeout(
          () => (document.activeElement === null || document.activeElement === document.body ? restore(el, tries - 1) : undefined),
          50,
        )
      return
    }
    el.focus()
  }

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
