#!/usr/bin/env node
// Runs the built fake (npm run build first); see test/fake-gemini/src/cli.ts.
import { main } from "../dist/cli.js";

process.exitCode = await main(process.argv.slice(2));
