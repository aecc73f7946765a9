/**
 * Guardrail settings changes in team mode (issue 23 item 3): before the address book, a limit or
 * resume changes, the team policy judges it (features/team): allow -> applied as on a single desk;
 * block -> TeamPolicyBlocks naming the rule; approvals -> a proposal carrying the exact change, and
 * this call answers TeamSettingsProposed (nothing changed yet; the desk applies it on its own once
 * its quorum is verified). The single-desk guardrails (passphrase, cooling-off, limits) apply in
 * every case. The halt never comes here: it stays immediate.
 */
import { DeskError } from '../../errors/desk-error'
import { TEAM_APPROVED, exchangeKey, type PolicyEngine } from '../../policy'
import { settingsTitle, type SettingsChange } from '../../team'

export type SettingsVerdict = { verdict: 'allow' } | { verdict: 'propose'; proposalId: string; needs: string; expiresAt: number }

/** The team's decision on a settings change (TeamService.decideSettings); absent: a single desk, everything allowed. */
export interface SettingsGate {
  decideSettings(
    change: SettingsChange,
    where: { network: string; exchange: string; preview: string[] },
    beforePropose: () => Promise<void>,
  ): Promise<SettingsVerdict>
}

/**
 * Asks the team gate; returns when the change may be applied now, throws TeamSettingsProposed (with
 * the proposal id) when it waits for approvals. `checkPassphrase` runs before a proposal is made.
 */
export async function judgeSettings(
  gate: SettingsGate | undefined,
  engine: PolicyEngine,
  change: SettingsChange,
  checkPassphrase: () => Promise<void>,
): Promise<void> {
  if (!gate) return
  const where = { network: engine.network, exchange: exchangeKey(engine.exchange), preview: [settingsTitle(change)] }
  const v = await gate.decideSettings(change, where, checkPassphrase)
  if (v.verdict === 'allow') return
  throw new DeskError(
    'TeamSettingsProposed',
    `${settingsTitle(change)}: proposal ${v.proposalId.slice(0, 10)}… needs ${v.needs}; nothing changed yet, this desk applies it once approved`,
    { proposalId: v.proposalId, needs: v.needs, expiresAt: v.expiresAt },
  )
}

/** Applies an approved change to this desk's guardrails; the passphrase was checked when it was proposed. */
export async function applyApprovedSettings(engine: PolicyEngine, change: SettingsChange, network: string): Promise<void> {
  if (engine.network !== network)
    throw new DeskError(
      'TeamSettingsOtherNetwork',
      `the change was approved for ${network}; this desk is on ${engine.network}: select ${network} to apply it`,
    )
  switch (change.op) {
    case 'address.add':
      await engine.addAddress({ label: change.label, address: change.address, chainId: change.chainId, passphrase: TEAM_APPROVED })
      return
    case 'address.remove':
      await engine.removeAddress({ label: change.label, passphrase: TEAM_APPROVED })
      return
    case 'limit.set':
      // Approved as a tightening, it must still be one: a loosening may have needed other approvals.
      if (change.direction === 'tighten' && !engine.setInput(change.name, change.value).tightening)
        throw new DeskError(
          'TeamSettingsDirectionChanged',
          `${change.name} changed since the proposal: setting it to ${change.value ?? 'off'} would now loosen it, and it was approved as a ` +
            `tightening; propose it again`,
          { name: change.name },
        )
      await engine.set(change.name, change.value, TEAM_APPROVED)
      return
    case 'resume':
      await engine.resume(TEAM_APPROVED)
      return
  }
}

/** Whether this desk's guardrails already hold the change (a desk restarted between recording and applying it). */
export function settingsInEffect(engine: PolicyEngine, change: SettingsChange): boolean {
  const s = engine.state()
  const byLabel = (label: string) => s.addresses.find((a) => a.label.toLowerCase() === label.trim().toLowerCase())
  switch (change.op) {
    case 'address.add': {
      const a = byLabel(change.label)
      return a !== undefined && a.address.toLowerCase() === change.address.toLowerCase() && a.chainId === change.chainId
    }
    case 'address.remove':
      return byLabel(change.label) === undefined
    case 'limit.set': {
      const r = s.rules.find((x) => x.name === change.name)
      return (r?.value ?? null) === change.value || (r?.pending !== null && r?.pending !== undefined && r.pending.value === change.value)
    }
    case 'resume':
      return s.halted === null
  }
}
