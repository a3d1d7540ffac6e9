/**
 * `@parlance/engine/azure`: Azure OpenAI and Azure AI Foundry, in their own entry point so an app
 * that does not use them does not bundle them.
 */
export { AZURE_KEY_ENV, azure, azureEndpoint, azurePath, createAzure, type AzureOptions } from './azure.ts';
