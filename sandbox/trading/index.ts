export { createTradingService } from './service'
export type * from './types'
