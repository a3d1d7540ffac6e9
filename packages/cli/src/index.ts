export { EXIT_DECODED_ERROR, EXIT_OK, EXIT_USAGE, HELP, runCli, type CliIo, type Writable } from './decode-command.ts';
