export { ALLOW_ALL, WRITE_KINDS, type SignedWrite, type WriteDecision, type WriteGate, type WriteIntent, type WriteKind } from './decision'
export { GUARDRAILS } from './guardrails'
export { requireSubmitted, WritePipeline, type RunWrite, type SubmittedWrite, type WritePipelineDeps, type WriteResult } from './pipeline'
export type { DescribedWrite, EarnSigning, GuardInputs, TradeSigning, WriteSpec } from './write-spec'
