/**
 * `@parlance/engine/bedrock`: Amazon Bedrock (Converse for every model family, InvokeModel for Anthropic
 * models in their native format), SigV4 signing and AWS event-stream framing, in their own entry point
 * so an app that does not use Bedrock does not bundle them.
 */
export { BEDROCK_ANTHROPIC_VERSION, type BedrockOptions, bedrock, bedrockRegion, CONVERSE_DIALECT, createBedrock, isBedrockAnthropic, parseBedrockError } from './bedrock.ts';
export {
  type AwsCredentialSource,
  type AwsCredentials,
  awsCredentialsFromEnv,
  createSigningKeyCache,
  resolveAwsCredentials,
  type SigV4Options,
  signAwsRequest,
} from './sigv4.ts';
