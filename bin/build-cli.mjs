#!/usr/bin/env node
// Bundles the `desk` CLI into one ESM file (out/cli/desk.mjs) started by plain node, so no
// TypeScript is compiled at start, and records what it was built from (bin/cli-bundle.mjs).
// Command groups load lazily (dynamic import, kept lazy inside the one file by esbuild), so
// `desk --help` evaluates only the router and the group table.
import { buildBundle } from './cli-bundle.mjs'

await buildBundle()
