/**
 * The core's typed error. The class itself lives in the contract (main/contract/errors.ts: plain
 * TypeScript) so the desk CLI, which imports only the contract, throws and catches the same class:
 * `instanceof DeskError` holds across the core and the CLI.
 */
export { DeskError, isDeskError, toErrorData, type DeskErrorData, type DeskErrorDetails } from '../../contract/errors'
