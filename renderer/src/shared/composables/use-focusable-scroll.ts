import { onMounted, onUpdated, type Ref } from 'vue'

/**
 * Naive UI's data tables render their header and body as scroll containers without a tab stop;
 * keyboard users must be able to reach and scroll them (axe: scrollable-region-focusable).
 */
export function useFocusableScroll(root: Ref<HTMLElement | null>): void {
  const apply = () => {
    for (const el of root.value?.querySelectorAll<HTMLElement>(
      '.n-data-table-base-table-header, .n-data-table-base-table-body, .n-scrollbar-container',
    ) ?? []) {
      // Only a tab stop: these divs carry role="none" for the table's semantics, so no name may be added.
      if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '0')
    }
  }
  onMounted(apply)
  onUpdated(apply)
}
