/**
 * `@parlance/engine/azure`: Azure OpenAI and Azure AI Foundry, in their own entry point so an app
 * that does not use them does not bundle them.
 */
export { AZURE_KEY_ENV, type AzureOptions, azure, azureEndpoint, azurePath, createAzure } from './azure.ts';
