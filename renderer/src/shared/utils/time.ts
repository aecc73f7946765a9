/** Ages, countdowns and times for display: the desk's one format (main/contract/format). */
export { formatAge, formatCountdown, formatDuration, formatTime, formatTimeWithAge } from '../../../../main/contract/format'
