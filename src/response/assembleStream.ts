/** What a model provider's streamed answer adds up to. */
export interface AssembledStream {
  /** `openai` (chat.completion.chunk, text_completion, Responses API events) or `anthropic` (Messages API). */
  style: 'openai' | 'anthropic';
  model?: string;
  /** The streamed text deltas joined (OpenAI: choice 0). */
  text: string;
  /** The provider's token counts as sent (OpenAI: the chunk with `usage`; Anthropic: message_start merged with message_delta). */
  usage: Record<string, unknown> | null;
  stop_reason?: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Reads the events' JSON data as an OpenAI- or Anthropic-style stream; null when it is neither. */
export function assembleStream(data: readonly unknown[]): AssembledStream | null {
  const objects = data.filter(isObject);
  if (objects.some((d) => d.object === 'chat.completion.chunk' || d.object === 'text_completion')) return openAiChat(objects);
  if (objects.some((d) => typeof d.type === 'string' && d.type.startsWith('response.'))) return openAiResponses(objects);
  if (objects.some((d) => d.type === 'message_start' || d.type === 'content_block_delta')) return anthropic(objects);
  return null;
}

function openAiChat(chunks: Json[]): AssembledStream {
  const out: AssembledStream = { style: 'openai', text: '', usage: null };
  for (const chunk of chunks) {
    out.model ??= str(chunk.model);
    if (isObject(chunk.usage)) out.usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) continue;
    for (const choice of chunk.choices) {
      if (!isObject(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
      const delta = isObject(choice.delta) ? choice.delta : null;
      out.text += str(delta?.content) ?? str(choice.text) ?? '';
      const reason = str(choice.finish_reason);
      if (reason) out.stop_reason = reason;
    }
  }
  return out;
}

function openAiResponses(events: Json[]): AssembledStream {
  const out: AssembledStream = { style: 'openai', text: '', usage: null };
  for (const event of events) {
    if (event.type === 'response.output_text.delta') out.text += str(event.delta) ?? '';
    const response = isObject(event.response) ? event.response : null;
    if (response) {
      out.model ??= str(response.model);
      if (isObject(response.usage)) out.usage = response.usage;
      const status = str(response.status);
      if (status && event.type !== 'response.created' && event.type !== 'response.in_progress') out.stop_reason = status;
    }
  }
  return out;
}

function anthropic(events: Json[]): AssembledStream {
  const out: AssembledStream = { style: 'anthropic', text: '', usage: null };
  for (const event of events) {
    if (event.type === 'message_start' && isObject(event.message)) {
      out.model ??= str(event.message.model);
      if (isObject(event.message.usage)) out.usage = { ...event.message.usage };
    } else if (event.type === 'content_block_delta' && isObject(event.delta)) {
      if (event.delta.type === 'text_delta') out.text += str(event.delta.text) ?? '';
    } else if (event.type === 'message_delta') {
      // message_delta's usage is cumulative and wins over message_start's counts.
      if (isObject(event.usage)) out.usage = { ...(out.usage ?? {}), ...withoutNulls(event.usage) };
      const reason = isObject(event.delta) ? str(event.delta.stop_reason) : undefined;
      if (reason) out.stop_reason = reason;
    }
  }
  return out;
}

function withoutNulls(value: Json): Json {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null && item !== undefined));
}
