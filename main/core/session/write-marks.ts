/** The journal changes of one network, as live reads follow them. */
export interface JournalWrites {
  onChange(
    listener: (s: {
      network: string
      account: string
      body: string
      channel?: string
      state?: string
      actionType?: string
      code?: string | null
    }) => void,
  ): () => void
  network: string
}

/** Rejections that say the agent slots the signer was picked from are out of date. */
const AGENT_STALE = new Set(['AgentEpochMismatch', 'UnknownAgent'])

const ADDRESS_IN_TEXT = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g

/** Journal steps after which the exchange may hold a new state for the write's accounts. */
const WRITE_MOVES = new Set(['sent', 'accepted', 'unknown', 'reconciled'])

/**
 * When each account was last written to, as the journal tells: state from before an account's
 * latest write is not used for it, and agent writes (or refusals for an agent's epoch) make the
 * signer's agent slots be read again.
 */
export class WriteMarks {
  /** account -> time of its latest journaled write step that may have moved it: stream state from before is not used */
  readonly writtenAt = new Map<string, number>()
  /** account -> when its latest write was handed to the network */
  readonly sentAt = new Map<string, number>()
  readonly close: () => void

  constructor(w: JournalWrites | undefined, now: () => number, agentsChanged: (account: string) => void) {
    this.close = w
      ? w.onChange((sub) => {
          if (sub.network !== w.network) return
          // An agent approval or revocation (any state: it may have executed), or a write refused
          // for its epoch: the slots the signer is picked from are read again.
          if ((sub.actionType !== undefined && /agent/i.test(sub.actionType)) || (sub.code && AGENT_STALE.has(sub.code)))
            agentsChanged(sub.account.toLowerCase())
          // Only the steps where the account may have moved: signing changes nothing on the
          // exchange, a refusal or failure neither; earn writes touch the earn pool, not the
          // trading balances streamed here.
          if (sub.channel !== undefined && sub.channel !== 'trade') return
          if (sub.state !== undefined && !WRITE_MOVES.has(sub.state)) return
          const t = now()
          if (sub.state === 'sent') this.sentAt.set(sub.account.toLowerCase(), t)
          // The write's own account and every account its body names (a transfer's recipient...).
          this.writtenAt.set(sub.account.toLowerCase(), t)
          for (const m of sub.body.matchAll(ADDRESS_IN_TEXT)) this.writtenAt.set(m[0].toLowerCase(), t)
        })
      : () => {}
  }
}
