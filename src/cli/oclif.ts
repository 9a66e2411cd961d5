/**
 * @module oclif's start, for bin/run.js: a module of its own so that the CLI bundle (scripts/bundle-cli.js) has an
 * entry point that holds @oclif/core, shared with every command it then loads.
 */
export {execute} from '@oclif/core'
