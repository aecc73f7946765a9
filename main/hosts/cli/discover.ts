/** Finds the command groups: every `commands/<group>.ts` default-exports one. */
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { CommandGroup } from './router'

export async function discoverGroups(dir = join(dirname(fileURLToPath(import.meta.url)), 'commands')): Promise<CommandGroup[]> {
  const files = readdirSync(dir)
    .filter((f) => /\.(ts|js|mjs)$/.test(f) && !/\.(test|spec)\.[a-z]+$/.test(f) && !f.endsWith('.d.ts'))
    .sort()
  const groups: CommandGroup[] = []
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default?: CommandGroup }
    if (mod.default && typeof mod.default.name === 'string' && Array.isArray(mod.default.commands)) groups.push(mod.default)
  }
  return groups
}
