import * as v from 'valibot'
import { defineInfo } from '../define'
import { address, rowsEnvelope, userParams } from '../fields'

/** Deposit record fields are not named by the spec; rows are kept whole. */
export const DepositRecordSchema = v.looseObject({})

/** `deposits`: a user's retained deposit records; the response echoes `user`. */
export const deposits = defineInfo({
  type: 'deposits',
  request: userParams,
  response: v.pipe(
    v.looseObject({ user: v.optional(address) }),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const rows = v.safeParse(rowsEnvelope(['deposits', 'records'], DepositRecordSchema), dataset.value)
      if (!rows.success) {
        addIssue({ message: 'deposits: no record list in the response' })
        return NEVER
      }
      return { user: dataset.value.user ?? null, deposits: rows.output }
    }),
  ),
})
