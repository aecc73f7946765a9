/**
 * Data that crosses the process boundary (IPC or the web host's socket). Plain JSON only:
 * amounts, prices, sizes, ids and nonces are decimal strings, never numbers; times are
 * Unix milliseconds as numbers (safe below 2^53).
 *
 * The index of the contract's types: each feature keeps its views in main/contract/<feature>.types.ts
 * (beside its <feature>.channels.ts), the shared ones are in common.types.ts. Import from here
 * ('../contract/types'); the feature files never import this index.
 */

export * from './common.types'
export * from './app.types'
export * from './vault.types'
export * from './networks.types'
export * from './settings.types'
export * from './accounts.types'
export * from './portfolio.types'
export * from './agents.types'
export * from './journal.types'
export * from './transfers.types'
export * from './orders.types'
export * from './earn.types'
export * from './confirm.types'
export * from './streams.types'
export * from './policy.types'
export * from './cli.types'
export * from './reports.types'
export * from './team.types'
