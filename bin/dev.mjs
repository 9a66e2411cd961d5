#!/usr/bin/env node
// Development entry: same as run.js but with oclif's development flag (no manifest cache, verbose errors).
import {execute} from '@oclif/core'

await execute({development: true, loadOptions: {root: new URL('..', import.meta.url).pathname}})
