import { formatDurationWords, formatPercent, formatUsd } from '../../contract/format'
import { ruleSpec, type ValueSource } from './rules'

/** A value as the operator reads it, saying where it comes from when it is not the operator's own. */
export function ruleValueText(name: string, value: string | null, source: ValueSource = 'set'): string {
  const k = ruleSpec(name).kind
  const text =
    value === null
      ? 'off'
      : k === 'duration'
        ? formatDurationWords(Number(value))
        : k === 'usd'
          ? formatUsd(value)
          : k === 'percent'
            ? formatPercent(value)
            : value
  return source === 'default' ? `${text} (default)` : source === 'global' ? `${text} (the global band)` : text
}

/** A cooling-off as the operator reads it; `sandboxDefault`: the sandbox's default applies (not set by the operator). */
export function coolingOffText(ms: number, sandboxDefault: boolean): string {
  const note = sandboxDefault ? ' (the sandbox default is 60 seconds; real networks default to 24 hours)' : ''
  return `${formatDurationWords(ms)}${note}`
}
