/** Team mode's lower layer: the team store on PostgreSQL and the signed chain (roster, policy). */
export { TeamErrors, isTeamUnreachable, teamBadInput } from './errors'
export { TeamStore, type LeaseRow, type LeaseTx, type LogEntryRow, type PendingChange } from './store'
export type { TeamConnectionOptions } from './connection'
export type { LinkStatus, LogSubscriber, LogSubscription } from './listen'
export { MIGRATIONS } from './migrations'
export { identitySigner, newIdentityKey, type TeamSigner } from './identity'
export {
  changeDigest,
  changeTypedData,
  signsAsChange,
  entryDigest,
  entryTypedData,
  sealEntry,
  signEntry,
  signedEntry,
  type EntryKind,
  type EntrySignature,
  type SignedEntry,
  type UnsignedEntry,
} from './entry'
export {
  ChainVerifier,
  toStoredRow,
  verifyChain,
  type BrokenLink,
  type ChainReport,
  type PolicyVersion,
  type StoredRow,
  type TeamState,
  type VerifyOptions,
} from './chain'
export { ROLES, adminsOf, applyRosterChanges, type Member, type Role, type Roster, type RosterChange } from './roster'
export {
  ACTION_KINDS,
  DIRECTED_KINDS,
  DIRECTIONS,
  USD_DECIMALS,
  evaluate,
  judgedUsd,
  unknownUsdNote,
  VALUE_KINDS,
  policyFromPayload,
  type ActionKind,
  type Decision,
  type Direction,
  type Effect,
  type Intent,
  type Policy,
  type Rule,
} from './policy'
export {
  atHead,
  custodyEntry,
  custodyResplitEntry,
  custodySealEntry,
  genesisEntry,
  lifecycleEntry,
  policyEntry,
  rosterEntry,
  type GenesisInput,
} from './authoring'
export { custodyFromPayload, type CustodyHolder, type CustodyPending, type CustodyRecord } from './custody/record'
export { addressOfKey, combineKey, splitKey } from './custody/key-split'
export { parseRecoveryShare, recoveryShare, type RecoveryShare } from './custody/recovery-file'
export { CustodyStore, addressOfPublicKey, type ReleaseRow, type ShareRow, type SigningRequestRow } from './custody/custody-store'
export { proposalKey } from './proposal-key'
export { custodyRefusalEntry, isRefusal, refusalFromPayload, KEPT_REFUSALS, type CustodyRefusal } from './custody/refusal'
export {
  EXECUTOR_ROLES,
  INITIATOR_ROLES,
  MAX_EVIDENCE_CHARS,
  MAX_PROPOSAL_TTL_MS,
  OUTCOME_STATES,
  RECORDED_KINDS,
  RECORDED_TTL_MS,
  VAULT_KINDS,
  countingApprovals,
  isFinalOutcome,
  isRecordedWrite,
  proposalPayload,
  proposalStatus,
  quorumMet,
  type OutcomeState,
  type Proposal,
  type ProposalBody,
  type ProposalEntryKind,
  type ProposalStatus,
} from './proposals'
export { WINDOW_MS, rollingWindowUsd } from './window'
export { exportCsv, followStore, verifyStore, type FollowHandlers } from './audit'
export { logToCsv } from './csv'
export { canonicalJson } from './canonical'
export {
  DESK_WIDE_ACCOUNT,
  SETTINGS_KINDS,
  isSettingsKind,
  settingsAction,
  settingsChangeOf,
  settingsDirection,
  settingsKey,
  settingsKeyBase,
  settingsKind,
  settingsTitle,
  type SettingsChange,
  type SettingsKind,
} from './settings'
