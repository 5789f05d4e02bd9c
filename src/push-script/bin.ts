#!/usr/bin/env node
// The content push script, built into one file (dist/help-push.mjs) that runs on Node.js 20 or later
// with no dependencies, and served by the service at {HELP_URL}/cli/help-push.mjs so that a content
// repository's CI fetches the one that matches the service. `help-push --help` says how to use it.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
