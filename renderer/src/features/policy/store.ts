import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { AddressBookEntryView, AgentSlotView, Address, HaltResult, PolicyView, SubmissionView } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

/**
 * The operator's guardrails as main enforces them: rules, the address book, halt and resume.
 * The renderer only shows main's decisions; a write refused here is refused in main anyway.
 */
export const usePolicyStore = defineStore('policy', () => {
  const view = ref<PolicyView | null>(null)
  const error = ref<unknown>(null)
  const lastHalt = ref<HaltResult | null>(null)
  /** The shell's halt panel (opened by the bar's "Halt trading" button). */
  const panelOpen = ref(false)

  const halted = computed(() => view.value?.halted ?? null)
  const addresses = computed<AddressBookEntryView[]>(() => view.value?.addresses ?? [])

  async function load(): Promise<void> {
    try {
      view.value = await call('policy.show')
      error.value = null
    } catch (e) {
      error.value = e
    }
  }

  /** Tightening applies at once; a loosening answers `PassphraseRequired` unless the passphrase is given. */
  async function set(name: string, value: string | null, passphrase?: string): Promise<PolicyView> {
    view.value = await call('policy.set', passphrase ? { name, value, passphrase } : { name, value })
    return view.value
  }

  async function addAddress(a: { label: string; address: Address; chainId: string; passphrase: string }): Promise<AddressBookEntryView> {
    const e = await call('addresses.add', a)
    await load()
    return e
  }

  async function removeAddress(label: string, passphrase: string): Promise<void> {
    await call('addresses.remove', { label, passphrase })
    await load()
  }

  /** Halts every write, cancels every open order and reads them back; main answers per account. */
  async function halt(): Promise<HaltResult> {
    const r = await call('policy.halt')
    lastHalt.value = r
    await load()
    return r
  }

  async function resume(passphrase: string): Promise<void> {
    view.value = await call('policy.resume', { passphrase })
    lastHalt.value = null
  }

  const revokeAll = (owner: Address): Promise<AgentSlotView[]> => call('agents.revokeAll', { owner })

  /** The operator checked an unresolved write on the exchange: journaled, frees its cloid. */
  const acknowledge = (id: string, note: string): Promise<SubmissionView> => call('journal.acknowledge', { id, note })

  return { view, error, lastHalt, panelOpen, halted, addresses, load, set, addAddress, removeAddress, halt, resume, revokeAll, acknowledge }
})
