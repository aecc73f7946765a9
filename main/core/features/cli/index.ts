export { type CliDeps } from './cli-deps'
export { cliReadHandlers, type CliReadChannels } from './reads.handlers'
export { cliWriteHandlers, type CliWriteChannels } from './writes.handlers'
