/**
 * Entry of the web build (out/renderer-web), served by the loopback web host: installs the
 * WebSocket adapter as `window.desk`, then starts the same app as Electron. The adapter reads
 * the host's token from the URL fragment here, before the router rewrites the fragment.
 * Import order is evaluation order: the install runs before the app module.
 */
import './install'
import '../../app/main'
