export { PortfolioService, type AccountIdentity, type PortfolioDeps as PortfolioServiceOptions } from './portfolio.service'
export { portfolioFor, type PortfolioServiceDeps } from './portfolio-for-session'
export { LiveOverview, type LiveOverviewDeps } from './live-overview'
export { portfolioHandlers, type PortfolioChannels, type PortfolioDeps } from './handlers'
