#!/usr/bin/env node
// `npm run web [-- ARGS]`: the loopback web host. `--help` prints the usage at once (only the
// argument module is loaded; nothing is built); otherwise the native binding is matched to
// node, the renderer is built, and the host runs under tsx.
import { spawn, spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)

if (args.includes('--help') || args.includes('-h')) {
  const { tsImport } = await import('tsx/esm/api')
  const { WEB_USAGE } = await tsImport(join(root, 'main/hosts/web/args.ts'), import.meta.url)
  process.stdout.write(WEB_USAGE)
  process.exit(0)
}

const step = (cmd, argv) => {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
step(process.execPath, [join(root, 'bin/ensure-native.mjs'), 'node'])
step(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['electron-vite', 'build'])
const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(root, 'main/hosts/web/cli.ts'), ...args], {
  cwd: root,
  stdio: 'inherit',
})
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)))
