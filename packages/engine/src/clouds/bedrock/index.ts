/**
 * `@parlance/engine/bedrock`: Amazon Bedrock (Converse for every model family, InvokeModel for Anthropic
 * models in their native format), SigV4 signing and AWS event-stream framing, in their own entry point
 * so an app that does not use Bedrock does not bundle them.
 */
export { BEDROCK_ANTHROPIC_VERSION, CONVERSE_DIALECT, bedrock, bedrockRegion, createBedrock, isBedrockAnthropic, parseBedrockError, type BedrockOptions } from './bedrock.ts';
export {
  awsCredentialsFromEnv,
  createSigningKeyCache,
  resolveAwsCredentials,
  signAwsRequest,
  type AwsCredentialSource,
  type AwsCredentials,
  type SigV4Options,
} from './sigv4.ts';
