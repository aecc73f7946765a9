/**
 * Child process for the crash test: opens the vault, starts a change, and SIGKILLs itself at the
 * chosen point of the atomic write. argv: vaultPath passphrase point(beforeRename|afterWrite)
 */
import { Vault } from '../vault'

const [path, passphrase, point] = process.argv.slice(2) as [string, string, string]
const vault = await Vault.open({
  path,
  writeHooks: {
    beforeRename: () => {
      if (point === 'beforeRename') process.kill(process.pid, 'SIGKILL')
    },
  },
})
await vault.unlock(passphrase)
await vault.addWatchOnly('0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 'added by child')
if (point === 'afterWrite') process.kill(process.pid, 'SIGKILL')
process.exit(0)
