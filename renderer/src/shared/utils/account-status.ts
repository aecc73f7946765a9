import type { AccountView } from '../../../../main/contract/types'

/** An account's status in words: 'none' is an address the service has no account for yet (activate it). */
export function accountStatusText(status: AccountView['status']): string {
  switch (status) {
    case 'none':
      return 'not activated'
    case 'unknown':
      return 'status not read yet'
    default:
      return status
  }
}
