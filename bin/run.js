#!/usr/bin/env node
// The `kb` entry point: oclif reads the shipped manifest, so start-up loads only the command it runs.
import {execute} from '@oclif/core'

await execute({dir: import.meta.url})
