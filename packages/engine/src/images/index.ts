export {
  editImage,
  generateImage,
  imageVariations,
  type ImageCallOptions,
  type ImageEditRequest,
  type ImageGenerateRequest,
  type ImageInput,
  type ImageModel,
  type ImageResult,
  type ImageVariationRequest,
} from './image-model.ts';
export { geminiImageModel, type GeminiImageModelOptions } from './gemini-images.ts';
export { openaiImageModel, type OpenAIImageModelOptions } from './openai-images.ts';
export { resolveImageModel, type ResolveImageModelOptions } from './resolve-image-model.ts';
