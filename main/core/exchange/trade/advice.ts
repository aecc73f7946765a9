/**
 * What the operator should do about an outcome code the desk produces (failed and unresolved
 * writes, per-order leaf codes). The renderer keeps its own table for display; these texts go
 * into the journal with the outcome so every host (CLI, UI, export) shows the same advice.
 */
const ADVICE: Record<string, string> = {
  // Benign closes (spec §3): the order is closed, no fix needed, but it may have traded.
  ioccancel: 'Closed by its time in force (IOC); it may have traded partly. Check its fills; no fix needed.',
  fokcancel: 'Fill-or-kill closed without completing; it may still have traded. Check its fills before placing it again.',
  selftradepreventioncancel: 'Closed when it met your own resting order; fills before that point are real. Check its fills.',
  marketordernoliquidity: 'The market order found no liquidity and closed; it may have traded partly. Check its fills.',
  // Per-order failures.
  missingorder: 'The order was no longer open (it may have filled or been cancelled already): the cancel did nothing. Check the order status and fills.',
  marketnotfound: 'The market does not exist. Nothing was placed or cancelled.',
  tick: 'The price is not on the market tick. Nothing was placed; fix the price.',
  lotsize: 'The quantity is not on the market lot size. Nothing was placed; fix the quantity.',
  badalopx: 'The post-only order would have crossed the book and was closed. Nothing traded.',
  insufficientspotbalance: 'Not enough available balance for this order. Nothing was placed.',
  insufficientspotcredit: 'The credit line does not cover this order. Nothing was placed.',
  mintradespotntl: 'The order notional is below the market minimum. Nothing was placed.',
  accountopenorderlimit: 'The account has 1000 open orders in this market. Cancel some first.',
  maxfillsexceeded: 'The order hit the 100-fills limit; the filled part is real. Check its fills.',
  invalidsettle: 'The settle executed and failed (for example it would over-settle the long). Nothing moved; check the position before settling again.',
  invalidrepay: 'The repay executed and failed (for example it would over-repay the short). Nothing moved; check the short before repaying again.',
  failed: 'The transaction executed and failed without a single error code. Check balances and the order status before trying again.',
  // Envelope-level refusals the desk had not met before.
  FeatureDisabled: 'This feature is turned off on the service. Nothing executed.',
  InvalidBatchLength: 'The batch length was refused (1 to 10 items). Nothing executed.',
  // Earn pool.
  EarnDeadlinePassed: 'The signed claim expired before the pool accepted it. The desk never signs a second claim for the same withdrawal: it reads the withdrawal back to learn what happened. If it is still queued, contact the pool operator.',
}

export function adviceFor(code: string | null | undefined): string | null {
  if (!code) return null
  return ADVICE[code] ?? ADVICE[code.toLowerCase()] ?? null
}

/** Codes that close an order without the action failing (spec §3 "benign cancel codes"). */
export const BENIGN_CLOSE_CODES: ReadonlySet<string> = new Set(['ioccancel', 'fokcancel', 'selftradepreventioncancel', 'marketordernoliquidity'])
