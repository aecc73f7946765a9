export { headlessHostServices, hostHandlers, type HostChannels, type HostServices } from './handlers'
