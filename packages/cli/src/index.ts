export { EXIT_DECODED_ERROR, EXIT_OK, EXIT_USAGE, HELP, runCli, type CliIo, type Writable } from './decode-command.ts';
export { GATEWAY_HELP, parseGatewayConfig, runGatewayCli, startGateway, type GatewayConfig, type RunningGateway } from './gateway-command.ts';
